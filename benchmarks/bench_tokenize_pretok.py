"""Pre-tokenization for English and Chinese: tokens per character with and without the CJK rule.

Trains two byte-level BPE tokenizers that differ only in `train_tokenizer.split_cjk`, on the same
text (the first 80% of the lines of shared/data/text: ABC news and web text in English, People's
Daily in Chinese), and counts tokens per character and UTF-8 bytes per token on the held-out last
20% of each language. Lower tokens/char = more text per context window and per training FLOP.

    python benchmarks/run_all.py tokenize-pretok            # 32k vocabulary, all of the text
    python benchmarks/run_all.py tokenize-pretok --quick    # 8k vocabulary, a quarter of the text
"""

from __future__ import annotations

import sys
import time

import harness
import regex
from common import DATA, RESULTS
from harness import Results, Spec

from corpus_pipeline.tokenize.bpe import load_tokenizer, save_tokenizer, train_bpe
from corpus_pipeline.tokenize.config import TrainTokenizerConfig

SOURCES = {  # file, encoding (the NLTK English files are Latin-1)
    "en": [("text/en_abc_news.txt", "latin-1"), ("text/en_webtext.txt", "latin-1")],
    "zh": [("text/zh_peoples_daily_199801.txt", "utf-8")],
}
TRAIN_SHARE = 0.8
CJK = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}]")


def split_lines(fraction: float) -> dict[str, tuple[list[str], list[str]]]:
    """language -> (training lines, held-out lines); every file split at TRAIN_SHARE of its lines."""
    result = {}
    for language, files in SOURCES.items():
        train, held_out = [], []
        for name, encoding in files:
            lines = [line.strip() for line in (DATA / name).read_text(encoding=encoding).splitlines() if line.strip()]
            lines = lines[: int(len(lines) * fraction)]
            cut = int(len(lines) * TRAIN_SHARE)
            train += lines[:cut]
            held_out += lines[cut:]
        result[language] = (train, held_out)
    return result


def measure(tokenizer, lines: list[str]) -> dict:
    text = "\n".join(lines)
    tokens = len(tokenizer.encode(text, add_special_tokens=False).ids)
    return {
        "chars": len(text),
        "tokens": tokens,
        "tokens_per_char": tokens / len(text),
        "bytes_per_token": len(text.encode("utf-8")) / tokens,
    }


def fused_cjk_tokens(tokenizer) -> int:
    """Vocabulary entries that glue CJK characters to punctuation or Latin letters ("，中国", "中文abc")."""
    fused = 0
    for token_id in range(tokenizer.get_vocab_size()):
        text = tokenizer.decode([token_id])
        has_cjk = any(CJK.match(ch) for ch in text)
        # U+FFFD: a token ending inside a multi-byte character, not a fusion.
        has_other = any(not CJK.match(ch) and not ch.isspace() and not ch.isdigit() and ch != "\ufffd" for ch in text)
        fused += has_cjk and has_other
    return fused


def run(args, out: Results) -> int:
    vocab, fraction = (8_000, 0.25) if args.quick else (32_000, 1.0)
    data = split_lines(fraction)
    training = [line for train, _ in data.values() for line in train]
    results: dict = out.details
    results.update(vocab_size=vocab, fraction_of_text=fraction, rules={})
    for split_cjk in (True, False):
        started = time.perf_counter()
        config = TrainTokenizerConfig(vocab_size=vocab, split_cjk=split_cjk)
        tokenizer = train_bpe((training[i : i + 1_000] for i in range(0, len(training), 1_000)), config)
        path = RESULTS / f".pretok-{split_cjk}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        save_tokenizer(tokenizer, path)
        tokenizer = load_tokenizer(str(path))
        path.unlink()
        rule = "split_cjk" if split_cjk else "plain"
        results["rules"][rule] = {lang: measure(tokenizer, held_out) for lang, (_, held_out) in data.items()}
        results["rules"][rule]["fused_cjk_vocabulary"] = fused_cjk_tokens(tokenizer)
        results["rules"][rule]["train_seconds"] = round(time.perf_counter() - started, 1)
    print(f"held-out tokens per character, vocabulary {vocab:,} (bytes per token in brackets)")
    print(f"  {'rule':<12}" + "".join(f"{lang:>22}" for lang in SOURCES) + "   vocabulary entries fusing CJK")
    for rule, figures in results["rules"].items():
        cells = "".join(
            f"{figures[lang]['tokens_per_char']:>14.4f} ({figures[lang]['bytes_per_token']:.2f} B)" for lang in SOURCES
        )
        print(f"  {rule:<12}{cells}{figures['fused_cjk_vocabulary']:>12,}")
    plain = results["rules"]["plain"]
    for rule, figures in results["rules"].items():
        for lang in SOURCES:
            value = figures[lang]["tokens_per_char"]
            case = f"{rule}, {lang}, vocabulary {vocab:,}"
            if rule == "plain":
                out.record(case, "tokens_per_char", value, "tokens/char")
            else:
                ratio = value / plain[lang]["tokens_per_char"]
                out.record(case, "tokens_per_char", value, "tokens/char", ratio, "plain")
    return 0


SPEC = Spec("tokenize-pretok", __doc__, run, shared=("quick",))

if __name__ == "__main__":
    sys.exit(harness.main(SPEC))
