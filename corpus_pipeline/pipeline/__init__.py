"""The whole pipeline as one run (`corpus-pipeline run`) and the nightly refresh that cron calls
(`corpus-pipeline nightly`). The steps are `steps.STEPS`, built from the registry: a stage's step is
the one its entry names, or the document step."""
