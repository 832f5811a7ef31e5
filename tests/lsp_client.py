"""A minimal LSP client for the tests: JSON-RPC with Content-Length framing over a
subprocess's stdin/stdout (``tflint-effective server``)."""
import json
import queue
import subprocess
import sys
import threading
import time

from tfe_testing import ROOT


class Client:
    def __init__(self, cwd, encodings=None):
        self.process = subprocess.Popen([sys.executable, "-m", "tflint_effective", "server"], cwd=cwd,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, env=_environment())
        self.messages = queue.Queue()
        self.notifications = []
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()
        capabilities = {"general": {"positionEncodings": encodings}} if encodings else {}
        self.initialized = self.request("initialize", {"processId": None, "rootUri": cwd.as_uri(),
                                                       "capabilities": capabilities})
        self.notify("initialized", {})

    def _read(self):
        stream = self.process.stdout
        while True:
            length = None
            while True:
                header = stream.readline()
                if not header:
                    return
                if header in (b"\r\n", b"\n"):
                    break
                name, _, value = header.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            self.messages.put(json.loads(stream.read(length)))

    def send(self, message):
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def notify(self, method, params):
        self.send({"method": method, "params": params})

    def request(self, method, params, timeout=60):
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        while True:
            message = self.messages.get(timeout=max(deadline - time.monotonic(), 0.01))
            if message.get("id") == self.next_id and "method" not in message:
                assert "error" not in message, message
                return message["result"]
            self.notifications.append(message)

    def collect(self, seconds):
        """Notifications arriving within ``seconds``."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                self.notifications.append(self.messages.get(timeout=max(deadline - time.monotonic(), 0.01)))
            except queue.Empty:
                break

    def diagnostics(self, uri, version, timeout=60):
        """The diagnostics published for ``uri`` at ``version`` (waits for them)."""
        deadline = time.monotonic() + timeout
        while True:
            for message in self.notifications:
                params = message.get("params", {})
                if (message.get("method") == "textDocument/publishDiagnostics"
                        and params["uri"] == uri and params.get("version") == version):
                    return params["diagnostics"]
            self.notifications.append(self.messages.get(timeout=max(deadline - time.monotonic(), 0.01)))

    def published(self, uri):
        return [m["params"] for m in self.notifications
                if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri]

    def open(self, path, text, version=1):
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": path.as_uri(), "languageId": "python", "version": version, "text": text}})

    def change(self, path, text, version):
        self.notify("textDocument/didChange", {"textDocument": {"uri": path.as_uri(), "version": version},
                                               "contentChanges": [{"text": text}]})

    def close(self):
        try:
            self.request("shutdown", None, timeout=10)
            self.notify("exit", None)
            self.process.wait(timeout=10)
        finally:
            if self.process.poll() is None:
                self.process.kill()
            for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
                stream.close()


def _environment():
    import os

    environ = dict(os.environ)
    environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), environ.get("PYTHONPATH")]))
    return environ
