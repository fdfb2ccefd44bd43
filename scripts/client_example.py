#!/usr/bin/env python3
"""A small client of the NCM Hub caller API (/api/v1): unwraps envelopes and raises refusals as exceptions.

    python3 -m pip install -r requirements.txt
    python3 scripts/client_example.py --url http://127.0.0.1:8000 [--token TOKEN]

Every /api/v1 answer is an envelope {ok, ..., refuse, data}; this client returns `data` when ok is true and
raises Refused(code, reason) otherwise, honouring Retry-After for `rate_limited` and `occupied`.
"""

import argparse
import sys
import time

try:
    import requests
except ImportError:  # the example explains itself instead of a traceback
    sys.exit("client_example.py needs the requests package: python3 -m pip install -r requirements.txt")


class Refused(Exception):
    """A refusal envelope: the host said no, with a code and a reason (SPEC §1.2)."""

    def __init__(self, refuse):
        self.code = refuse.get("code")
        self.reason = refuse.get("reason")
        self.http_status = refuse.get("http_status")
        self.retry_after_s = refuse.get("retry_after_s")
        self.issues = refuse.get("issues") or []
        super().__init__("%s (%s): %s" % (self.code, self.http_status, self.reason))


class NcmClient:
    def __init__(self, url, token=None, timeout=70.0, retries=2):
        self.base = url.rstrip("/") + "/api/v1"
        self.session = requests.Session()
        self.session.headers["Accept"] = "application/json"
        if token:
            self.session.headers["Authorization"] = "Bearer " + token
        self.timeout = timeout
        self.retries = retries

    def call(self, method, path, body=None):
        """Returns the envelope's data or raises Refused; waits and retries when told to come back later."""
        for attempt in range(self.retries + 1):
            response = self.session.request(method, self.base + path, json=body, timeout=self.timeout)
            envelope = response.json()
            if envelope.get("ok"):
                return envelope["data"]
            refusal = Refused(envelope.get("refuse") or {})
            if refusal.code in ("rate_limited", "occupied") and attempt < self.retries:
                time.sleep(min(float(refusal.retry_after_s or 1), 30.0))
                continue
            raise refusal
        raise AssertionError("unreachable")

    def get(self, path):
        return self.call("GET", path)

    def post(self, path, body):
        return self.call("POST", path, body)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--token", default=None)
    args = parser.parse_args(argv)
    client = NcmClient(args.url, args.token)

    ops = client.get("/ops")
    names = [op["name"] for op in (ops.get("operations", ops) if isinstance(ops, dict) else ops)]
    print("%d operations: %s" % (len(names), ", ".join(sorted(names))))

    digest = client.post("/digest", {"content": "abc"})
    print("sha256('abc') =", digest["digests"]["sha256"]["hex"])

    sat = client.post("/sat", {"dimacs": "p cnf 2 2\n1 2 0\n-1 0\n"})
    print("SAT status:", sat["status"], "model:", sat.get("model"), "verified:", sat.get("verified"))

    try:
        client.post("/chat", {"messages": [{"role": "user", "content": "hello"}]})
    except Refused as refusal:
        print("chat refused as documented:", refusal.code)
    return 0


if __name__ == "__main__":
    sys.exit(main())
