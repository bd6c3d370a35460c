#!/usr/bin/env python3
"""An MCP client in Python (standard library only) that follows the client contract of
`mcp-resumption conformance --client-cmd` (docs/conformance.md, "Test your own client"):

    mcp-resumption conformance --client-cmd 'python3 examples/contract-client.py'

It calls the tool `count` once at $MCP_URL over Streamable HTTP, prints every message it
delivers to its application as one JSON line, prints the error it surfaces as
{"error": ...}, and exits. It resumes a broken stream with Last-Event-ID and accepts a resumed
stream only when its first event's id is the cursor's successor: ids of the form
<stream>-<seq> (the kit's hostile servers use c<k>-<seq>). Every wait is bounded.
"""
import json
import os
import re
import sys
import time
import urllib.error
import urllib.request

URL = os.environ.get("MCP_URL")
ID = re.compile(r"^(?P<stream>.+)-(?P<seq>\d+)$")
CALL_BUDGET_S = 6.0  # the whole call
IDLE_S = 4.0  # silence on a stream (keepalives count as life)
MAX_RETRY_S = 2.0  # a server's retry: is capped here
MAX_POLLS = 5  # empty resumed streams in a row before the call fails
PROOF_S = 2.0  # a resumed stream must prove continuity (its first id) within this


class Failed(Exception):
    pass


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def post(body, session, version):
    headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
    }
    if session:
        headers["mcp-session-id"] = session
        headers["mcp-protocol-version"] = version
    req = urllib.request.Request(URL, json.dumps(body).encode(), headers, method="POST")
    return urllib.request.urlopen(req, timeout=IDLE_S)


def events(resp):
    """Yields (kind, value) from an SSE body: ('event', (id, data)), ('retry', ms), ('end', None)."""
    data, event_id, retry = [], None, None
    while True:
        try:
            raw = resp.readline()
        except Exception:  # a cut connection, or silence past IDLE_S
            yield ("end", None)
            return
        if not raw:
            yield ("end", None)
            return
        line = raw.decode("utf-8").rstrip("\r\n")
        if line == "":
            if retry is not None:
                yield ("retry", retry)
                retry = None
            if event_id is not None or data:
                yield ("event", (event_id, "\n".join(data)))
            data, event_id = [], None
        elif line.startswith(":"):
            yield ("keepalive", None)
        else:
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "data":
                data.append(value)
            elif field == "id" and "\0" not in value:
                event_id = value
            elif field == "retry" and value.isdigit():
                retry = int(value)


def main():
    if not URL:
        print("contract-client: MCP_URL is not set", file=sys.stderr)
        return 2
    version = "2025-11-25"
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "contract-client.py", "version": "1"},
        },
    }
    with post(init, None, version) as r:
        session = r.headers.get("mcp-session-id")
        answer = json.loads(r.read() or b"{}")
        version = answer.get("result", {}).get("protocolVersion", version)
    post({"jsonrpc": "2.0", "method": "notifications/initialized"}, session, version).close()
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "count", "arguments": {}, "_meta": {"progressToken": "p"}},
    }
    deadline = time.monotonic() + CALL_BUDGET_S
    resp = post(call, session, version)
    cursor, retry_s, polls, resumed, resumed_at = None, 1.0, 0, False, 0.0
    while True:
        proven = not resumed
        got_any = False
        for kind, value in events(resp):
            if time.monotonic() > deadline:
                raise Failed("the call ran past its budget")
            if not proven and time.monotonic() - resumed_at > PROOF_S:
                raise Failed(f"the resumed stream proved nothing in {PROOF_S} s (a 200 is no proof)")
            if kind == "retry":
                retry_s = min(value / 1000.0, MAX_RETRY_S)
                continue
            if kind == "end":
                break
            if kind == "keepalive":
                continue
            event_id, data = value
            if event_id:
                seq = ID.match(event_id)
                if not proven:
                    prev = ID.match(cursor) if cursor else None
                    if not seq or not prev or seq["stream"] != prev["stream"]:
                        raise Failed(f"resumed stream starts with {event_id!r}, not after {cursor!r}")
                    if int(seq["seq"]) != int(prev["seq"]) + 1:
                        raise Failed(f"replay gap: expected {prev['stream']}-{int(prev['seq']) + 1}, got {event_id}")
                    proven = True
                cursor = event_id
            if not data.strip():
                continue  # a priming event or an id-only block: nothing to deliver
            if not proven:
                raise Failed("data before any proof of continuity")
            got_any = True
            msg = json.loads(data)
            if msg.get("method") == "notifications/progress":
                emit(msg)
            elif msg.get("id") == 2:
                if "error" in msg:
                    raise Failed(f"the server answered with an error: {msg['error']}")
                emit(msg)
                return 0
        resp.close()
        # The stream ended without the result: resume from the cursor, or fail.
        if cursor is None:
            raise Failed("the stream ended before any id: nothing to resume from")
        polls = 0 if got_any else polls + 1
        if polls >= MAX_POLLS:
            raise Failed(f"{polls} empty resumed streams: continuity never proven")
        if time.monotonic() + retry_s > deadline:
            raise Failed("the call's budget ran out before it could resume")
        time.sleep(retry_s)
        headers = {"accept": "text/event-stream", "last-event-id": cursor}
        if session:
            headers["mcp-session-id"] = session
            headers["mcp-protocol-version"] = version
        req = urllib.request.Request(URL, headers=headers, method="GET")
        try:
            resp = urllib.request.urlopen(req, timeout=IDLE_S)
        except urllib.error.HTTPError as e:
            raise Failed(f"the resume was answered {e.code}")
        resumed, resumed_at = True, time.monotonic()


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Failed as e:
        emit({"error": str(e)})
        sys.exit(1)
    except Exception as e:  # the network, the server's answer: surfaced, never a silent exit
        emit({"error": f"{type(e).__name__}: {e}"})
        sys.exit(1)
