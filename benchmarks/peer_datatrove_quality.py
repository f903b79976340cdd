"""datatrove's four quality blocks timed on the same documents, run INSIDE the benchmark venv
(benchmarks/peer_env.py); never imported by the project. The last stdout line is one JSON object.

Each block's `filter(doc)` is called on EVERY document (a fresh Document per block: C4QualityFilter
rewrites the text), so the four times add up to what "all four blocks on every document" costs, the
figure our one-pass stage is compared with. Defaults everywhere (English, spaCy word tokenizer).

    peer_datatrove_quality.py --input docs.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from importlib import metadata


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--input", required=True, help="JSON lines with a `text` field")
    args = parser.parse_args()
    from datatrove.data import Document
    from datatrove.pipeline.filters import (
        C4QualityFilter,
        FineWebQualityFilter,
        GopherQualityFilter,
        GopherRepetitionFilter,
    )

    with open(args.input, encoding="utf-8") as lines:
        texts = [json.loads(line)["text"] for line in lines]
    blocks = {
        "GopherQualityFilter": GopherQualityFilter(),
        "GopherRepetitionFilter": GopherRepetitionFilter(),
        "C4QualityFilter": C4QualityFilter(),
        "FineWebQualityFilter": FineWebQualityFilter(),
    }
    result = {"docs": len(texts), "blocks": {}, "versions": {"datatrove": metadata.version("datatrove")}}
    for name, block in blocks.items():
        block.filter(Document(text=texts[0], id="warm-up"))  # loads the tokenizer outside the timing
        docs = [Document(text=text, id=str(index)) for index, text in enumerate(texts)]
        kept = 0
        started = time.perf_counter()
        for doc in docs:
            verdict = block.filter(doc)
            kept += verdict is True or (isinstance(verdict, tuple) and verdict[0] is True)
        result["blocks"][name] = {"seconds": time.perf_counter() - started, "kept": kept}
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
