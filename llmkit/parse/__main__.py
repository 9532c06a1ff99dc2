"""Debug a model answer: `python -m llmkit.parse --schema-file S.json < answer.txt`.

Prints {"ok", "value", "layer", "coercions", "errors"} as JSON. Exit code 0 when the answer
parsed, 1 when it did not, 2 when the command itself was used wrongly.
"""

from __future__ import annotations

import argparse
import json
import sys

import jsonschema

from llmkit.parse import SchemaTarget, parse


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m llmkit.parse", description=__doc__)
    parser.add_argument("--schema-file", required=True, help="JSON Schema the answer must fit")
    args = parser.parse_args(argv)
    try:
        with open(args.schema_file, encoding="utf-8") as handle:
            schema = json.load(handle)
        target = SchemaTarget(schema)
    except (OSError, ValueError, jsonschema.SchemaError) as error:
        print(f"cannot use schema file {args.schema_file}: {error}", file=sys.stderr)
        return 2
    # Bytes, not text: a model answer in a broken encoding must still be looked at.
    outcome = parse(sys.stdin.buffer.read(), target)
    json.dump(outcome.as_dict(), sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")
    return 0 if outcome.ok else 1


if __name__ == "__main__":
    sys.exit(main())
