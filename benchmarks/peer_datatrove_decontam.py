"""datatrove's NGramsDecontFilter timed on the same documents and eval items, run INSIDE the benchmark
venv (benchmarks/peer_env.py); never imported by the project. The last stdout line is one JSON object.

datatrove's NGramsDecontIndexer refuses to start without `lighteval` (PipelineStep.__new__ checks
the dependency, and run() loads lighteval tasks even when items come as documents); lighteval pulls
in torch and transformers, too much for a benchmark venv. So the index is made by the indexer's own
`compute_hashes` (its normalization, word tokenizer, 13-grams with query, label and overlap
n-grams, and hash), called on an indexer built with object.__new__, and written as the
`<task>.index.hashes` file the filter reads, as the indexer's run() writes it. The filter itself runs
unchanged: `filter(doc)` on every document, one process.

    peer_datatrove_decontam.py --docs docs.jsonl --items items.jsonl --index DIR
"""

from __future__ import annotations

import argparse
import json
import time
from importlib import metadata

N_GRAMS = 13


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", required=True, help="JSON lines with a `text` field")
    parser.add_argument("--items", required=True, help="JSON lines with `query` and `label`")
    parser.add_argument("--index", required=True, help="a folder for the index files")
    args = parser.parse_args()
    import numpy as np
    from datatrove.data import Document
    from datatrove.pipeline.decont.n_grams import NGramsDecontConfig, NGramsDecontFilter, NGramsDecontIndexer
    from datatrove.utils.hashing import create_hash_func
    from datatrove.utils.word_tokenizers import load_word_tokenizer

    config = NGramsDecontConfig(n_grams=N_GRAMS, find_query_ngrams=True, find_overlap_ngrams=True)
    indexer = object.__new__(NGramsDecontIndexer)  # past PipelineStep.__new__'s lighteval check
    indexer.config, indexer.tokenizer = config, load_word_tokenizer("en")
    indexer.hash_func = create_hash_func(config.hash_config)
    started = time.perf_counter()
    hashes: set[int] = set()
    with open(args.items, encoding="utf-8") as lines:
        items = [json.loads(line) for line in lines]
    for item in items:
        hashes.update(indexer.compute_hashes(item["label"], item["query"]))
    array = np.array(sorted(hashes), dtype=config.hash_config.np_descr)
    with open(f"{args.index}/eval.index.hashes", "wb") as stream:
        array.tofile(stream)
    index_s = time.perf_counter() - started

    with open(args.docs, encoding="utf-8") as lines:
        texts = [json.loads(line)["text"] for line in lines]
    block = NGramsDecontFilter(args.index, config=config)
    block.load_index_hashes()
    started = time.perf_counter()
    contaminated = sum(1 for n, text in enumerate(texts) if block.filter(Document(text, str(n))) is not True)
    filter_s = time.perf_counter() - started
    print(
        json.dumps(
            {
                "docs": len(texts),
                "items": len(items),
                "index_hashes": len(array),
                "index_s": round(index_s, 3),
                "filter_s": round(filter_s, 3),
                "contaminated": contaminated,
                "versions": {"datatrove": metadata.version("datatrove")},
            }
        )
    )


if __name__ == "__main__":
    main()
