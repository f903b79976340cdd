"""The whole pipeline as one run (`corpus-pipeline run`) and the nightly refresh that cron calls
(`corpus-pipeline nightly`). The order of the steps is `steps.STEPS`; adding a step is one entry."""
