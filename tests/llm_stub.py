"""A stub OpenAI-compatible chat-completions server on 127.0.0.1 for the LLM-S/E tests and golden files: canned
answers decided by the prompt alone, so that two clients asking the same prompt get the same answer.

`canned_scores(prompt, n)` is the answer's scores: a digest of the prompt and the target number, 1-5. A prompt whose
source contains one of `MALFORMED`'s keys gets that malformed answer instead (the parity run uses none of them).
"""

from __future__ import annotations

import hashlib
import json
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Iterator

#: Source marker -> the answer's content for the parsing-failure tests.
MALFORMED = {
    "BROKENJSON": '{"target_score1": 3, ',
    "PROSEONLY": "I think the first target is the best one.",
    "MISSINGKEY": '{"target_score1": 4}',
    "OUTOFRANGE": '{"target_score1": 9, "target_score2": 2}',
    "NOTANINT": '{"target_score1": "five", "target_score2": 2}',
    "FENCED": 'Sure!\n```json\n{"target1_score": 2, "target2_score": 5}\n```',
}


def canned_scores(prompt: str, n: int) -> list[int]:
    """Scores 1-5 for targets 1..n, a digest of the prompt."""
    return [1 + hashlib.md5(f"{k}|{prompt}".encode()).digest()[0] % 5 for k in range(1, n + 1)]


def canned_content(prompt: str, n: int) -> str:
    """The answer's message content for `prompt`."""
    for marker, content in MALFORMED.items():
        if marker in prompt:
            return content
    return json.dumps({f"target_score{k}": s for k, s in enumerate(canned_scores(prompt, n), 1)})


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        server = self.server
        server.requests.append(body)  # type: ignore[attr-defined]
        if server.stopping.wait(server.delay):  # type: ignore[attr-defined]
            return  # stopped while delaying: the client has given up
        if server.status != 200:  # type: ignore[attr-defined]
            return self._send(server.status, {"error": {"message": "stub failure"}})  # type: ignore[attr-defined]
        if self.headers.get("Authorization") != "Bearer stub-key":
            return self._send(401, {"error": {"message": "bad key"}})
        prompt = body["messages"][-1]["content"]
        n = len(body["response_format"]["json_schema"]["schema"]["required"])
        self._send(200, {"id": "stub", "object": "chat.completion", "created": 0, "model": body["model"],
                         "choices": [{"index": 0, "finish_reason": "stop", "logprobs": None, "message": {
                             "role": "assistant", "content": canned_content(prompt, n), "refusal": None}}],
                         "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})

    def _send(self, status: int, payload: dict) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@contextmanager
def stub_server(*, status: int = 200, delay: float = 0.0) -> Iterator[ThreadingHTTPServer]:
    """A running stub (its `base_url` and the `requests` it received as attributes), stopped on exit, also when the
    test fails. `status`: every request is answered with this HTTP status and an error body unless it is 200 (a
    failing endpoint); `delay`: each answer waits this many seconds first, or until the stub stops (a slow one)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.requests = []  # type: ignore[attr-defined]
    server.status, server.delay, server.stopping = status, delay, threading.Event()  # type: ignore[attr-defined]
    server.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.stopping.set()  # type: ignore[attr-defined]
        server.shutdown()
        server.server_close()
        thread.join()
