#!/usr/bin/env python3
"""Go-live smoke check of a running NCM Hub: requests every contract admin route and prints a table.

Standard library only, so it runs on any host with python3:

    python3 scripts/smoke.py --url http://127.0.0.1:8000 [--token "$ADMIN_TOKEN"] [--require-ready]

Exit status: 0 when every route answered 2xx (and, for the JSON routes, an envelope with ok=true);
1 when any did not (or, with --require-ready, when the readiness report says "blocked"); 2 on bad usage.
"""

import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.request

ROUTES = (
    ("/admin", "html"),
    ("/api/v1/admin/truth/summary", "envelope"),
    ("/api/v1/admin/command-post/summary", "envelope"),
    ("/api/v1/admin/go-live/overview", "envelope"),
)


def fetch(base, path, token, timeout):
    """Returns (status, body bytes, content type, ms); status is None when no HTTP answer came."""
    request = urllib.request.Request(base.rstrip("/") + path, headers={"Accept": "application/json, text/html"})
    if token:
        request.add_header("Authorization", "Bearer " + token)
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body = response.read()
            return response.status, body, response.headers.get("Content-Type", ""), elapsed_ms(started)
    except urllib.error.HTTPError as error:
        return error.code, error.read(), error.headers.get("Content-Type", ""), elapsed_ms(started)
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        return None, str(reason).encode(), "", elapsed_ms(started)


def elapsed_ms(started):
    return round((time.perf_counter() - started) * 1000, 1)


def check(base, path, expect, token, timeout):
    status, body, content_type, ms = fetch(base, path, token, timeout)
    row = {"path": path, "status": status, "ms": ms, "ok": False, "detail": "", "data": None}
    if status is None:
        row["detail"] = "no answer: " + body.decode("utf-8", "replace")
        return row
    if not 200 <= status < 300:
        row["detail"] = refusal_reason(body) or "HTTP %d" % status
        return row
    if expect == "html":
        row["ok"] = "text/html" in content_type
        row["detail"] = "" if row["ok"] else "expected text/html, got %r" % content_type
        return row
    try:
        envelope = json.loads(body)
    except ValueError:
        row["detail"] = "the body is not JSON"
        return row
    row["ok"] = envelope.get("ok") is True and envelope.get("invented_metrics") is False
    row["detail"] = "" if row["ok"] else "the envelope is not ok=true with the contract flags"
    row["data"] = envelope.get("data")
    return row


def refusal_reason(body):
    try:
        refuse = json.loads(body).get("refuse") or {}
        return "%s: %s" % (refuse.get("code"), refuse.get("reason"))
    except (ValueError, AttributeError):
        return ""


def print_table(rows):
    print("%-40s %6s %9s  %s" % ("path", "status", "ms", "result"))
    for row in rows:
        status = "-" if row["status"] is None else str(row["status"])
        result = "pass" if row["ok"] else "FAIL " + row["detail"]
        print("%-40s %6s %9.1f  %s" % (row["path"], status, row["ms"], result))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000", help="base URL of the host (default %(default)s)")
    parser.add_argument("--token", default=os.environ.get("ADMIN_TOKEN"), help="admin bearer token (default $ADMIN_TOKEN)")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per request (default %(default)s)")
    parser.add_argument("--require-ready", action="store_true", help="also fail when the readiness report is blocked")
    args = parser.parse_args(argv)
    if not args.url.startswith(("http://", "https://")):
        parser.error("--url must start with http:// or https://")

    rows = [check(args.url, path, expect, args.token, args.timeout) for path, expect in ROUTES]
    print_table(rows)
    passed = sum(1 for row in rows if row["ok"])
    failed = len(rows) - passed
    overview = rows[-1]["data"] if rows[-1]["ok"] else None
    ready_ok = True
    if isinstance(overview, dict):
        summary = overview.get("summary", {})
        print("readiness: %s, boot %s, score %s, plan %s" % (
            summary.get("status"), summary.get("boot_status"), summary.get("readiness_score"),
            overview.get("plan", {}).get("readiness")))
        blockers = overview.get("blockers", {})
        for blocker in blockers.get("required_blockers", []):
            print("  blocker [%s] %s" % (blocker.get("kind"), blocker.get("detail")))
        for advisory in blockers.get("advisories", []):
            detail = advisory.get("detail", {})
            print("  advisory [%s] %s -> %s" % (advisory.get("kind"), detail.get("module"), detail.get("recommended_package")))
        ready_ok = summary.get("status") == "ready"
    print("%d passed, %d failed" % (passed, failed))
    if failed or (args.require_ready and not ready_ok):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
