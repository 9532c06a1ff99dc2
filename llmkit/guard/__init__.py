"""Level-0 guard: spots attempts to extract the system prompt and "what can you do?"
questions before any model is called, and answers both with canned replies.

Zero tokens: hand-written regular expressions, compiled once, in Russian, Ukrainian,
English, German, French, Spanish and Chinese. `guard_check(text)` returns a
`GuardVerdict` (what fired and which rule, for the event the caller records) or None;
`guard_reply(kind, language)` is the canned answer in the client's language.

Tuned for precision: a false alarm answers a real client's project message with a
refusal, which is worse than letting an odd attack through to a stage agent whose own
prompt does not reveal itself either. So

* an extraction rule needs an *intent*, not a word: a request verb (or "your"/"твои", or
  an "ignore ..." command) aimed at something that can only mean the assistant's
  configuration ("system prompt", "your initial instructions", "what was written above
  this message"). "The instructions for the shoot are in the attached doc" has no such
  target; "ignore the previous budget" has no instruction noun;
* an unqualified noun ("your instructions", "твои правила") counts only when the noun
  phrase ends there, so "your rules on revisions" or "правила оплаты" (a domain follows)
  stay benign;
* a target owned by the client ("write a system prompt for our bot", "мои прошлые
  указания") is skipped, and so is a request in a sentence about the film or a print
  piece ("the video should show the system message", "print the text above on the
  banner");
* a capabilities question must be the whole message (after a greeting and before the
  punctuation): "what can you do?" fires, "what can you do for 500k?" does not, because
  a question about the studio's offer is a briefing question for the stage agent, and
  neither does "we can do a 30-second video". Who or what the assistant is ("are you a
  bot?", "кто тебя создал?") gets the same reply, which introduces the assistant. When the
  patterns are silent, level 1's capability model (`llmkit.level1_model`, a small linear
  model, still no tokens) reads a short single question that speaks to the assistant and
  has no figures in it ("з чим ви можете допомогти?", "tell me what you can do for me").

Layout: `engine` (the verdict), `normalise`, `blocks` (what every language's rules are
built from), one module per language's tables (`english`, `russian`, `ukrainian`,
`german`, `french`, `spanish`, `chinese`), `capabilities`, `replies` and `evaluation`.

`python -m llmkit.guard --eval DIR` prints precision and recall on the development corpus
(see `evaluate`); `python -m llmkit.guard "text"` shows the verdict for one message.
"""

from llmkit.guard.engine import GuardKind, GuardVerdict, guard_check
from llmkit.guard.evaluation import _main, evaluate, load_corpus
from llmkit.guard.normalise import normalise
from llmkit.guard.replies import guard_reply

__all__ = [
    "GuardKind",
    "GuardVerdict",
    "_main",
    "evaluate",
    "guard_check",
    "guard_reply",
    "load_corpus",
    "normalise",
]
