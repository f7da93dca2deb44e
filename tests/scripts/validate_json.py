#!/usr/bin/python3
"""Validates vpnlab's JSON documents against its shipped JSON Schemas (draft 2020-12).

  validate_json.py SCHEMA_DIR NAME FILE...   each FILE (a JSON document; *.jsonl: one per line)
                                             against SCHEMA_DIR/NAME.schema.json
  validate_json.py SCHEMA_DIR --check        every schema there is itself a valid 2020-12 schema

Every schema in SCHEMA_DIR is known by its $id, so one may $ref another. Prints one line per
error (file, line for JSON lines, the path inside the document, what is wrong); exit 1 on any.
Debian's python3-jsonschema (4.10) is the validator: run with /usr/bin/python3.
"""
import json
import pathlib
import sys

import jsonschema
from jsonschema import Draft202012Validator, RefResolver


def load_schemas(folder):
    schemas = {}
    for path in sorted(pathlib.Path(folder).glob("*.schema.json")):
        schemas[path.name[: -len(".schema.json")]] = json.loads(path.read_text())
    if not schemas:
        sys.exit(f"validate_json: {folder}: no *.schema.json")
    return schemas


def documents(path):
    text = pathlib.Path(path).read_text()
    if path.endswith(".jsonl"):
        for number, line in enumerate(text.splitlines(), 1):
            yield f"{path}:{number}", json.loads(line)
    else:
        yield path, json.loads(text)


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    schemas = load_schemas(argv[1])
    store = {s["$id"]: s for s in schemas.values()}
    if argv[2] == "--check":
        for name, schema in schemas.items():
            Draft202012Validator.check_schema(schema)
            assert schema.get("$schema") == "https://json-schema.org/draft/2020-12/schema", name
        print(f"validate_json: {len(schemas)} schema(s) valid")
        return 0
    name, files = argv[2], argv[3:]
    if name not in schemas:
        sys.exit(f"validate_json: no schema '{name}' in {argv[1]} (known: {', '.join(schemas)})")
    schema = schemas[name]
    validator = Draft202012Validator(schema, resolver=RefResolver.from_schema(schema, store=store))
    errors = 0
    count = 0
    for f in files:
        for where, doc in documents(f):
            count += 1
            for e in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path)):
                errors += 1
                # "not valid under any of the given schemas" quotes the whole value: say
                # instead what the closest alternative found wrong.
                if e.context:
                    e = max(e.context, key=lambda sub: len(sub.absolute_path))
                message = e.message if len(e.message) <= 300 else e.message[:300] + "..."
                print(f"{where}: /{'/'.join(map(str, e.absolute_path))}: {message}")
    if count == 0:
        sys.exit(f"validate_json: {name}: no document to validate")
    print(f"validate_json: {name}: {count} document(s), {errors} error(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
