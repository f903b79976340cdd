"""Sentence embeddings: the encoder (encoder.py), and what is built on its vectors."""
