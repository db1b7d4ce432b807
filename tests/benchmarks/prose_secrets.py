"""Secrets in prose: what gets through, and what is redacted that is no secret.

    python tests/benchmarks/prose_secrets.py [--show N]

1. The fresh prose-secret corpus (``tests/data/prose_secrets.jsonl``, written
   after the rules): messages with a secret left after ``redact_secrets``.
2. False redactions on real messages: every user message and agent reply of
   ``../shared/data/real`` (their own secrets were replaced by ``<redacted>``
   before they were kept, so a value tacit redacts there is almost always no
   secret), by split part (tune / check, by repository), with the rule that
   fired. ``--show N`` prints N redacted values per part for reading.
3. The cost: ``redact_secrets`` over all real messages, against
   ``str.lower`` over the same texts in the same run.
Not collected by pytest; skips part 2 and 3 when the data folder is absent.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit"))

import real_data  # noqa: E402
from tacit.safety.secrets import find_secrets, redact_secrets  # noqa: E402


def corpus_figures() -> None:
    import test_prose_secrets as corpus

    through = [row for row in corpus.ROWS if corpus.leaks(row)]
    print(f"corpus: {len(through)}/{len(corpus.ROWS)} messages with a secret through "
          f"({sum(len(r['secrets']) for r in corpus.ROWS)} secrets)")
    for row in through:
        print(f"  line {row['lineno']}: {row['text'][:100]!r}")


def real_texts(part: str) -> list[str]:
    rows = real_data.user_rows(part, labelled=False) + real_data.assistant_rows(part, labelled=False)
    return [row["text"] for row in rows if isinstance(row.get("text"), str)]


def false_redactions(part: str, show: int) -> None:
    texts = real_texts(part)
    changed, rules, examples = 0, Counter(), []
    for text in texts:
        spans = find_secrets(text)
        if not spans:
            continue
        changed += 1
        for span in spans:
            rules[span.pattern_id] += 1
            if len(examples) < show:
                examples.append(f"{span.pattern_id}: …{text[max(0, span.start - 40):span.end + 10]!r}")
    print(f"real {part}: {changed}/{len(texts)} messages redacted ({100 * changed / max(1, len(texts)):.2f}%); "
          f"spans by rule: {dict(rules.most_common())}")
    for line in examples:
        print("   ", line)


def cost() -> None:
    texts = real_texts("tune") + real_texts("check")
    best_redact = best_lower = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for text in texts:
            redact_secrets(text)
        best_redact = min(best_redact, time.perf_counter() - start)
        start = time.perf_counter()
        for text in texts:
            text.lower()
        best_lower = min(best_lower, time.perf_counter() - start)
    print(f"cost: redact_secrets {1e6 * best_redact / len(texts):.1f} µs per real message "
          f"({best_redact / best_lower:.0f}× str.lower), best of 3 over {len(texts)} messages")


def main() -> None:
    show = int(sys.argv[sys.argv.index("--show") + 1]) if "--show" in sys.argv else 0
    corpus_figures()
    if not real_data.available():
        print("real data folder absent: false redactions not measured")
        return
    for part in ("tune", "check"):
        false_redactions(part, show)
    cost()


if __name__ == "__main__":
    main()
