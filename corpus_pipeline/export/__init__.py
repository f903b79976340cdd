"""`corpus-pipeline export`: the documents of a finished stage (or of a mix, in shard order) as a
dataset repository: `data/train-00000-of-000NN.parquet` or `.jsonl.zst`, and a dataset card
(`README.md`) that `datasets.load_dataset` and the Hub read. No Spark here."""
