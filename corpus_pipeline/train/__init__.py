"""The bundled consumer of the corpus: a GPT trained on the token shards (torch, torchrun).

model.py (the network), data.py (windows from the shards), train.py (the loop), and around them
config, optimizer, checkpoints, input checks, monitoring, distribution and the `ablate` command.
Reads the shards through corpus_pipeline.tokenize.reader only; knows nothing of Spark or documents.
"""
