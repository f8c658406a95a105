"""A tiny OpenAI-compatible chat server on loopback for batch tests without a model: it
answers with the scripted BriefWriter, or with an HTTP error, and can be stopped."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from concord import netguard
from concord.llm.runtime import GenerationRequest
from pipeline.brief_writer import BriefWriter


class FakeLlamaServer:
    def __init__(self, status: int = 200, delay: float = 0.0) -> None:
        self.status = status
        self.delay = delay
        self.writer = BriefWriter(consult=["renal"])
        self.requests: list[dict] = []
        self.stopped = False
        self.aborted = 0  # requests cut off by stop(), as a killed server would
        self.lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _send(self, status: int, payload: dict) -> None:
                body = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _abort(self) -> None:
                self.close_connection = True
                self.connection.shutdown(2)

            def do_GET(self) -> None:
                self._send(200, {"data": [{"id": "fake-model.gguf"}]})

            def do_POST(self) -> None:
                data = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with owner.lock:
                    if owner.stopped:
                        return self._abort()
                    owner.requests.append(data)
                time.sleep(owner.delay)
                if owner.stopped:  # died while "generating": the client sees a reset
                    owner.aborted += 1
                    return self._abort()
                if owner.status != 200:
                    self._send(owner.status, {"error": "scripted failure"})
                    return
                content = data["messages"][-1]["content"]
                schema = (data.get("response_format") or {}).get("schema")
                text = owner.writer(GenerationRequest(prefix=content, prompt=content,
                                                      schema=schema))
                self._send(200, {"choices": [{"message": {"content": text},
                                              "finish_reason": "stop"}],
                                 "usage": {"prompt_tokens": 10, "completion_tokens": 5}})

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        netguard.allow([self.url])  # as an administrator would configure it
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        """Stop like a killed server: no new request is answered, nor one in progress."""
        with self.lock:
            self.stopped = True
        self.httpd.shutdown()
        self.httpd.server_close()
