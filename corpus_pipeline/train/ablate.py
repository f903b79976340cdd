"""`corpus-pipeline ablate`: does a filter help? Train the same small model for the same number of
tokens on two shard sets and compare their losses on one held-out set.

Both runs share the config, the seed (so the same initial weights and the same window order
relative to each corpus) and the evaluation windows; only the training corpus differs. All three
shard sets must come from one tokenizer, or the losses are not comparable. `ablation.json` holds
both final losses, the seed, and both curves (held-out loss at every evaluation step, from each
run's metrics.jsonl).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from corpus_pipeline.train.config import TrainConfig
from corpus_pipeline.train.distributed import Distributed
from corpus_pipeline.train.logs import read_metrics
from corpus_pipeline.train.preflight import check_same_tokenizer, open_checked_shards
from corpus_pipeline.train.train import TrainResult, train

ABLATION_FILE = "ablation.json"


@dataclass
class Ablation:
    a: TrainResult
    b: TrainResult
    tokens: int

    @property
    def difference(self) -> float:
        """Validation loss of B minus that of A: negative when B's corpus trains a better model."""
        return self.b.val_loss - self.a.val_loss

    def format(self, a_name: str, b_name: str) -> str:
        better = "B" if self.difference < 0 else "A"
        return "\n".join(
            [
                f"same model ({self.a.parameters:,} parameters), {self.tokens:,} training tokens each, "
                "one held-out set",
                f"  A {a_name}: validation loss {self.a.val_loss:.4f}",
                f"  B {b_name}: validation loss {self.b.val_loss:.4f}",
                f"  B - A = {self.difference:+.4f} ({better} is better)",
            ]
        )


def ablate(
    shards_a: Path, shards_b: Path, shards_eval: Path, out_dir: Path, config: TrainConfig, dist: Distributed
) -> Ablation:
    opened = [
        open_checked_shards(path, "sizes", role)
        for path, role in ((shards_a, "A"), (shards_b, "B"), (shards_eval, "evaluation"))
    ]
    check_same_tokenizer(opened[0], opened[1], "B")
    check_same_tokenizer(opened[0], opened[2], "evaluation")
    config = config.model_copy(update={"val_shards": str(shards_eval)})
    result_a = train(shards_a, Path(out_dir) / "a", config, dist)
    result_b = train(shards_b, Path(out_dir) / "b", config, dist)
    ablation = Ablation(result_a, result_b, result_a.tokens_seen)
    if dist.is_main:
        record = {
            "a": str(shards_a),
            "b": str(shards_b),
            "eval": str(shards_eval),
            "tokens": ablation.tokens,
            "val_loss_a": result_a.val_loss,
            "val_loss_b": result_b.val_loss,
            "difference": ablation.difference,
            "seed": config.seed,
            "curve_a": held_out_curve(Path(out_dir) / "a"),
            "curve_b": held_out_curve(Path(out_dir) / "b"),
        }
        (Path(out_dir) / ABLATION_FILE).write_text(json.dumps(record, indent=2) + "\n")
    return ablation


def held_out_curve(run_dir: Path) -> list[tuple[int, float]]:
    """(step, held-out loss) of every evaluation of a run, in step order."""
    return [(row["step"], row["val_loss"]) for row in read_metrics(run_dir) if row.get("val_loss") is not None]
