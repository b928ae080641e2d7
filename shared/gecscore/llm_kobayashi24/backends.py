"""Who answers a prompt: an OpenAI-compatible chat-completions endpoint, or a local Hugging Face causal LM.

Both return the answer's text; `gecscore.llm_kobayashi24.judge` reads the scores. The endpoint is asked as gec-metrics'
OpenAI classes ask it (a system message, the prompt, a JSON-schema answer format with `target_score1..n`, the
seed), over plain HTTP with httpx (no OpenAI client needed). The local model answers by greedy decoding after its
chat template, when it has one (gec-metrics' HF classes constrain the decoding to the JSON schema with `outlines`
and 8-bit weights; we decode freely and flag answers that cannot be read).

`CachedBackend` puts either behind an on-disk cache of answers (`answer_cache=FOLDER`): a re-run asks the judge
only what is new. An answer is stored under a key that holds everything it depends on (`Backend.request_key`: the
endpoint's URL and the whole request body, so the model, the prompt, the seed and the answer format; a local
model's folder, its files, revision, decoding settings and the text it reads). An answer that was not readable as a
message (None) is not stored, so it is asked again; a failed request raises and stores nothing. One SQLite file,
`answers.sqlite`, in the folder, which several processes may share (SQLite's locking; a write is one short
transaction). The answers do not change the numbers, so the metric's signature does not record the cache.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any, Protocol

from gecscore.common.encoders import cannot_load, check_model_path, resolve_model, select_device, shared_model
from gecscore.common.workers import capped_torch_threads
from gecscore.llm_kobayashi24.judge import HIGHEST, LOWEST, answer_schema
from gecscore.llm_kobayashi24.judge import SYSTEM_MESSAGE

#: The environment variable read when `api_key` is not given (the OpenAI client's own).
API_KEY_ENV = "OPENAI_API_KEY"
#: How a local judge that cannot be loaded is named, and what to use instead (`cannot_load`).
JUDGE = {"role": "the judge", "alternative": "backend='endpoint' (an OpenAI-compatible chat-completions endpoint)"}


class Backend(Protocol):
    """Answers one prompt judging `n` targets."""

    name: str

    def answer(self, prompt: str, n: int) -> str | None: ...

    def request_key(self, prompt: str, n: int) -> str:
        """Everything the answer depends on, as text (the answer cache's key)."""
        ...


class EndpointError(OSError):
    """The endpoint refused or failed a request (not an unreadable answer: that is flagged per sentence). An
    OSError, as `requests`' HTTPError is: a remote resource that cannot be used, which the CLI reports in one line.
    `transient`: worth asking again (a timeout, no connection, HTTP 429 or 5xx), which `retries` does."""

    def __init__(self, message: str, *, transient: bool = False) -> None:
        super().__init__(message)
        self.transient = transient


#: Seconds before the first retry of a failed request (doubled for each next one).
RETRY_WAIT = 1.0


class ChatEndpoint:
    """An OpenAI-compatible `POST {base_url}/chat/completions`."""

    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | None = None, seed: int = 777,
                 timeout: float = 120.0, retries: int = 0) -> None:
        self.model = model
        self.retries = retries
        self.base_url = (base_url or "https://api.openai.com/v1").rstrip("/")
        self.api_key = api_key or os.environ.get(API_KEY_ENV)
        if not self.api_key:
            raise ValueError(f"the endpoint needs an API key: pass api_key=... or set {API_KEY_ENV}")
        self.seed = seed
        self.timeout = timeout
        self.name = f"endpoint:{self.base_url}"

    def request(self, prompt: str, n: int) -> dict[str, Any]:
        """The request body: gec-metrics' messages, answer format and seed (Gemini models take no seed there)."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": "system", "content": SYSTEM_MESSAGE}, {"role": "user", "content": prompt}],
            "response_format": {"type": "json_schema", "json_schema": {
                "name": f"LLMSentOutputFormat{n}", "schema": answer_schema(n), "strict": True}},
        }
        if "gemini" not in self.model:
            body["seed"] = self.seed
        return body

    def request_key(self, prompt: str, n: int) -> str:
        """The endpoint and the whole request body (model, messages, answer format, seed)."""
        return json.dumps([self.base_url, self.request(prompt, n)], sort_keys=True)

    def answer(self, prompt: str, n: int) -> str | None:
        """The first choice's message content; a request that times out, cannot connect, or is answered HTTP 429 or
        5xx is sent again up to `retries` times, waiting `RETRY_WAIT` seconds, doubled each time, in between."""
        for attempt in range(self.retries + 1):
            try:
                return self._answer_once(prompt, n)
            except EndpointError as error:
                if not error.transient or attempt == self.retries:
                    if self.retries and error.transient:
                        raise EndpointError(f"{error} (after {attempt + 1} attempts; retries={self.retries})",
                                            transient=True) from error
                    raise
                time.sleep(RETRY_WAIT * 2 ** attempt)
        raise AssertionError("unreachable")

    def _answer_once(self, prompt: str, n: int) -> str | None:
        import httpx

        try:
            response = httpx.post(f"{self.base_url}/chat/completions", json=self.request(prompt, n),
                                  headers={"Authorization": f"Bearer {self.api_key}"}, timeout=self.timeout)
        except httpx.TimeoutException as error:
            raise EndpointError(f"{self.base_url} did not answer within {self.timeout:g} s; a slower endpoint needs "
                                "a larger timeout=SECONDS", transient=True) from error
        except httpx.HTTPError as error:
            raise EndpointError(f"cannot reach {self.base_url}: {error}", transient=True) from error
        if response.status_code != 200:
            raise EndpointError(f"{self.base_url} answered HTTP {response.status_code}: {response.text[:300]}",
                                transient=response.status_code == 429 or response.status_code >= 500)
        try:
            return response.json()["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            return None  # a reply without a message: flagged like an unreadable answer


class LocalModel:
    """A Hugging Face causal LM (hub id or local directory), loaded once through the shared model service."""

    def __init__(self, model: str, *, device: str | None = None, max_new_tokens: int = 64,
                 revision: str | None = None, decoding: str = "free") -> None:
        self.path = resolve_model(model)
        self.device = select_device(device)
        self.max_new_tokens = max_new_tokens
        self.revision = revision
        self.decoding = decoding
        self.name = "local"
        check_model_path(model, **JUDGE)
        self.model, self.tokenizer = shared_model("causal_lm", (self.path, revision, self.device),
                                                  lambda: self._load(model))

    def _load(self, model: str) -> tuple[Any, Any]:
        """(model, tokenizer); one OSError naming `model` when it cannot be loaded (transformers' errors do not)."""
        from safetensors import SafetensorError
        from transformers import AutoModelForCausalLM, AutoTokenizer

        try:
            tokenizer = AutoTokenizer.from_pretrained(self.path, revision=self.revision)
            loaded = AutoModelForCausalLM.from_pretrained(self.path, revision=self.revision)
        except (OSError, ValueError, SafetensorError) as error:
            raise cannot_load(model, error, **JUDGE) from error
        return loaded.to(self.device).eval(), tokenizer

    def text_of(self, prompt: str) -> str:
        """The prompt as the model reads it: one user turn of its chat template, or as is without one."""
        if getattr(self.tokenizer, "chat_template", None):
            return self.tokenizer.apply_chat_template([{"role": "user", "content": prompt}], tokenize=False)
        return prompt

    def request_key(self, prompt: str, n: int) -> str:
        """The model's folder and files, revision, decoding settings and the text it reads."""
        from gecscore.common.embedding_cache import folder_files

        decoding = "greedy" if self.decoding == "free" else self.decoding
        return json.dumps([self.path, folder_files(self.path), self.revision, self.max_new_tokens, decoding,
                           self.text_of(prompt)])

    def answer(self, prompt: str, n: int) -> str | None:
        """Greedy continuation of the prompt (at most `max_new_tokens` tokens), decoded; with
        `decoding="constrained"`, the answer format filled with the model's most likely scores."""
        import torch

        if self.decoding == "constrained":
            return self.constrained_answer(prompt, n)
        encoded = self.tokenizer(self.text_of(prompt), return_tensors="pt").to(self.device)
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else self.tokenizer.eos_token_id
        with torch.no_grad(), capped_torch_threads(self.device):
            out = self.model.generate(**encoded, do_sample=False, max_new_tokens=self.max_new_tokens,
                                      pad_token_id=pad)
        return self.tokenizer.decode(out[0, encoded["input_ids"].shape[1]:], skip_special_tokens=True)

    def constrained_answer(self, prompt: str, n: int) -> str:
        """The answer format gec-metrics enforces (a ```json block with `target_score1` .. `target_scoreN`), with
        each score the one of 1..5 whose text the model finds most likely after the answer so far (the sum of
        its tokens' log-probabilities, however the tokenizer splits it; the lowest score wins a tie). A small
        judge cannot answer outside the format or the range, so no sentence goes unread."""
        text, answer = self.text_of(prompt), "```json\n{"
        for k in range(1, n + 1):
            answer += f'"target_score{k}": '
            scores = [self.continuation_logprob(text + answer, str(d)) for d in range(LOWEST, HIGHEST + 1)]
            answer += str(LOWEST + scores.index(max(scores))) + (", " if k < n else "")
        return answer + "}\n```"

    def continuation_logprob(self, prefix: str, continuation: str) -> float:
        """log P(continuation | prefix) under the model: the tokens of `prefix + continuation` after those it
        shares with `prefix` alone."""
        import torch

        head = self.tokenizer(prefix, add_special_tokens=True)["input_ids"]
        ids = self.tokenizer(prefix + continuation, add_special_tokens=True)["input_ids"]
        shared = next((k for k, (a, b) in enumerate(zip(head, ids)) if a != b), min(len(head), len(ids)))
        shared = max(shared, 1)  # the first token is always given
        with torch.no_grad(), capped_torch_threads(self.device):
            logits = self.model(input_ids=torch.tensor([ids], device=self.device)).logits[0]
        logprobs = torch.log_softmax(logits.double(), dim=-1)
        return float(sum(logprobs[t - 1, ids[t]] for t in range(shared, len(ids))))


#: The answer cache's file in its folder.
CACHE_FILE = "answers.sqlite"


class CachedBackend:
    """`backend` answering from the cache in `directory` where it can, asking `backend` otherwise."""

    def __init__(self, backend: Backend, directory: str | Path) -> None:
        self.backend = backend
        self.name = backend.name
        folder = Path(directory).expanduser()
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / CACHE_FILE
        self._connection = sqlite3.connect(self.path, timeout=60)
        with self._connection:
            self._connection.execute("CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, answer TEXT NOT NULL)")
        self.hits = 0
        self.asked = 0

    def answer(self, prompt: str, n: int) -> str | None:
        """The stored answer to this request, or the backend's (stored when it is a message)."""
        key = hashlib.sha256(self.backend.request_key(prompt, n).encode()).hexdigest()
        row = self._connection.execute("SELECT answer FROM answers WHERE key = ?", (key,)).fetchone()
        if row is not None:
            self.hits += 1
            return row[0]
        self.asked += 1
        answer = self.backend.answer(prompt, n)
        if answer is not None:
            with self._connection:
                self._connection.execute("INSERT OR REPLACE INTO answers VALUES (?, ?)", (key, answer))
        return answer
