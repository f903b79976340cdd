"""The report's training-health section reads what the trainer writes (monitor.py's metrics,
events.py's health events) in each model folder of the run directory: curves, and every event."""

from __future__ import annotations

import shutil

from report_run_fixture import config, report_run  # noqa: F401 (a fixture)

from corpus_pipeline.report.write import write_report
from corpus_pipeline.train.events import EventLog
from corpus_pipeline.train.monitor import Monitor


def _trained(folder, steps: int, spike_at: int | None) -> None:
    monitor, events = Monitor(folder, enabled=True, tensorboard=False, max_steps=steps), EventLog(folder, enabled=True)
    for step in range(1, steps + 1):
        loss = 9.0 if step == spike_at else 5.0 - step / steps
        monitor.log(step, {"loss": loss, "lr": 1e-3, "grad_norm": 1.0, "tokens_per_s": 1000.0, "mfu": None})
        if step == spike_at:
            events.emit(step, "loss_spike", "error", "loss 9.0000 > 3.0 x median 4.5", action="skip")
    monitor.log(steps, {"val_loss": 4.2})
    monitor.close()


def test_each_trained_model_gets_its_curves_and_every_health_event(report_run, tmp_path):  # noqa: F811
    run = tmp_path / "run"
    shutil.copytree(report_run, run, ignore=shutil.ignore_patterns("report"))
    _trained(run / "model_tiny", steps=20, spike_at=7)
    _trained(run / "train_tiny", steps=10, spike_at=None)
    result = write_report(run, config())
    names = [model.name for model in result.figures.training]
    assert names == ["model_tiny", "train_tiny"]
    spiked = result.figures.training[0]
    assert (spiked.last_step, spiked.val_loss) == (20, 4.2)
    assert [event["kind"] for event in spiked.events] == ["loss_spike"] and spiked.loss.marks[0][0] == 7.0
    page = result.path.read_text(encoding="utf-8")
    section = page[page.index('<section id="training">') :].split("</section>")[0]
    assert "1 health event(s), 1 acted on" in section and "loss 9.0000 &gt; 3.0 x median 4.5" in section
    assert section.count('<figure class="plot"') == 4 and "No health event" in section  # train_tiny's


def test_a_run_without_a_model_says_so(report_run, tmp_path):  # noqa: F811
    page = write_report(report_run, config(), output=tmp_path / "r.html").path.read_text(encoding="utf-8")
    assert "No model was trained in this run directory" in page
