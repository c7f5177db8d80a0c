"""Numbers in gpuwhy's JSON documents (issue 35): counts, bytes and
nanoseconds are integers without exponent or fraction, no number is beyond
what a double reader holds exactly (2^53: those are digit strings), and
unknown is null, never NaN or Infinity. Usage: json_numbers_check.py FILE...
Exits 1 listing every offence."""
import json
import re
import sys

from json_check_problems import finish

EXACT = 2**53
# fields that hold integers by their meaning: counts, bytes, nanoseconds, ids
INTEGER_KEY = re.compile(r"(_ns|_bytes|^count|_count|^steps|^nsteps|^pid|^rank|^gpu|^seed|^resamples|^exit_status"
                         r"|^pairs|^varying|^xid)$")
# "key": token, where the token is a JSON number (strings and null do not match)
KEY_NUMBER = re.compile(r'"(\w+)":\s*(-?[0-9][0-9.eE+-]*)')


def check(path, text, problems):
    def bad_constant(name):
        problems.append(f"{path}: {name} is not JSON (unknown must be null)")
        return None

    def as_int(token):
        if abs(int(token)) > EXACT:
            problems.append(f"{path}: integer {token} is above 2^53: a JSON reader rounds it (write a string)")
        return int(token)

    def as_float(token):
        v = float(token)
        if ("e" in token or "E" in token) and v.is_integer() and abs(v) <= EXACT:
            problems.append(f"{path}: whole number written as {token}")
        return v

    try:
        json.loads(text, parse_constant=bad_constant, parse_int=as_int, parse_float=as_float)
    except ValueError as e:
        problems.append(f"{path}: not JSON: {e}")
        return
    for m in KEY_NUMBER.finditer(text):
        key, token = m.groups()
        if INTEGER_KEY.search(key) and not re.fullmatch(r"-?[0-9]+", token):
            problems.append(f"{path}: integer field \"{key}\" written as {token}")


def main():
    problems = []
    for path in sys.argv[1:]:
        with open(path, encoding="utf-8") as f:
            check(path, f.read(), problems)
    finish(problems, len(sys.argv) - 1, f"ok: numbers in {len(sys.argv) - 1} documents")


if __name__ == "__main__":
    main()
