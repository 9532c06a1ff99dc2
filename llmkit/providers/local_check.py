"""Checks that llama.cpp evaluates a real prompt on this CPU, in a child process.

`python -m llmkit.providers.local_check` exits 0 when a prompt of about 200 tokens (long
enough for llama.cpp's batched matrix kernels) evaluates, and 1 with the reason when the
child dies (SIGILL from an instruction the CPU does not execute) or fails. `scripts/install`
runs it after every install.
"""

from __future__ import annotations

import signal
import subprocess
import sys

_PROMPT_WORDS = 70  # about 200 tokens for SmolLM2's tokenizer
_CHILD_TIMEOUT_S = 120


def _evaluate_prompt() -> None:
    import llama_cpp

    from llmkit.providers.local import default_model_path

    llama = llama_cpp.Llama(model_path=str(default_model_path()), n_ctx=512, verbose=False)
    prompt = " ".join(f"word{i}" for i in range(_PROMPT_WORDS))
    tokens = llama.tokenize(prompt.encode())
    llama.eval(tokens)
    print(f"llama.cpp evaluated a {len(tokens)}-token prompt")
    llama.close()


def local_model_runs() -> tuple[bool, str]:
    """(whether a child process evaluated the prompt, what it said or why it died)."""
    try:
        done = subprocess.run(
            [sys.executable, "-m", "llmkit.providers.local_check", "--child"],
            capture_output=True,
            text=True,
            timeout=_CHILD_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return False, f"the check did not finish within {_CHILD_TIMEOUT_S} s"
    if done.returncode == 0:
        return True, done.stdout.strip()
    if done.returncode < 0:
        name = signal.Signals(-done.returncode).name
        return False, f"the model process was killed by {name} ({done.stderr.strip()[-500:]})"
    return False, done.stderr.strip()[-1000:] or f"exit status {done.returncode}"


def main() -> int:
    if "--child" in sys.argv:
        _evaluate_prompt()
        return 0
    ok, detail = local_model_runs()
    print(
        ("local model check: ok, " if ok else "local model check FAILED: ") + detail,
        file=sys.stdout if ok else sys.stderr,
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
