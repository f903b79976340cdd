# The training stage only: CUDA PyTorch, the project without Spark's JVM.
#   docker build -f docker/train.Dockerfile -t corpus-pipeline-train .
#   docker run --gpus all --ipc=host -v /data:/data corpus-pipeline-train \
#     torchrun --standalone --nproc_per_node=8 -m corpus_pipeline.cli train \
#       --shards /data/runs/2026-11-30/tokens --config configs/train_gpt-124m.yaml
# --ipc=host: NCCL and pinned-memory loaders need more than Docker's default 64 MB /dev/shm.
FROM pytorch/pytorch:2.9.1-cuda12.8-cudnn9-runtime

WORKDIR /opt/corpus_pipeline
# torch comes from the image (installed first, so `torch>=2.4` in [train] adds nothing). The
# project's other dependencies are pure Python or manylinux wheels; pyspark's jars are never started
# by the train verb, and no JVM is installed.
COPY pyproject.toml README.md ./
COPY corpus_pipeline ./corpus_pipeline
COPY configs ./configs
RUN pip install --no-cache-dir '.[train]' && python -c "import corpus_pipeline.train.train"

ENV PYTHONUNBUFFERED=1
CMD ["corpus-pipeline", "train", "--help"]
