"""spark-submit entry point for every stage of the registry: `jobs/stage.py STAGE ARGS...` takes the
same arguments as `corpus-pipeline STAGE` (its --help lists them).

    spark-submit --master spark://HOST:7077 jobs/stage.py extract --input ... --output ... [--config C]
    spark-submit --master spark://HOST:7077 jobs/stage.py langid --run-dir /shared/runs/r1

Not one file per stage: spark-submit puts this folder first on sys.path, where a stage named like a
standard module (a `tokenize.py`) shadows it and breaks every job in the folder.
"""

import sys

from corpus_pipeline.cli import main
from corpus_pipeline.engine.registry import STAGES

if __name__ == "__main__":
    names = [spec.name for spec in STAGES]
    if len(sys.argv) < 2 or sys.argv[1] not in names:
        print(f"usage: jobs/stage.py STAGE [ARGS...]; STAGE is one of: {', '.join(names)}", file=sys.stderr)
        sys.exit(2)
    sys.exit(main())
