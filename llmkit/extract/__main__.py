"""Command line: `python -m llmkit.extract [--today YYYY-MM-DD] [--region RU] < text.txt`
prints every finding in the text as JSON.

Input is read from stdin as bytes and decoded as UTF-8 (a leading BOM is dropped).
Invalid UTF-8 does not stop the run: undecodable bytes become U+FFFD and a warning goes to
stderr, because extraction from the readable rest is still useful. Bad arguments exit with
code 2 and a message; otherwise the exit code is 0.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys

from llmkit.extract import extract_all


def _date(value: str) -> datetime.date:
    try:
        return datetime.date.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"invalid date {value!r}: expected YYYY-MM-DD, e.g. 2027-03-15"
        ) from None


def _region(value: str) -> str:
    import phonenumbers

    code = value.upper()
    if code not in phonenumbers.SUPPORTED_REGIONS:
        raise argparse.ArgumentTypeError(f"unknown region {value!r}: expected e.g. RU, UA, US")
    return code


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m llmkit.extract",
        description="Extract money, phones, e-mails, links and deadlines from text on stdin "
        "(Russian, Ukrainian, English) and print them as JSON.",
    )
    parser.add_argument(
        "--today",
        type=_date,
        default=None,
        help="the date relative deadlines count from (YYYY-MM-DD; default: today)",
    )
    parser.add_argument(
        "--region",
        type=_region,
        default="RU",
        help="region for phone numbers written without a country code (default: RU)",
    )
    args = parser.parse_args(argv)
    raw = sys.stdin.buffer.read()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        print(
            f"warning: input is not valid UTF-8 (byte {error.start}); "
            "undecodable bytes were replaced with U+FFFD",
            file=sys.stderr,
        )
        text = raw.decode("utf-8-sig", errors="replace")
    today = args.today or datetime.date.today()
    result = extract_all(text, today=today, region=args.region)
    sys.stdout.buffer.write(json.dumps(result, ensure_ascii=False, indent=2).encode("utf-8"))
    sys.stdout.buffer.write(b"\n")
    sys.stdout.buffer.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
