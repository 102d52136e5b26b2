"""Helpers of the viewer's HTTP tests: an app over a home with the FastAPI TestClient,
signing in, reading the CSRF token of a page."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the viewer needs memex[server]")
pytest.importorskip("jinja2", reason="the viewer needs memex[server]")

from fastapi.testclient import TestClient

from memex_core.api import Memex
from memex_server.app import build_app

SECRET = "viewer-test-operator-secret-0123456789"
_CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')
_SIGNIN_TOKEN = re.compile(r'name="signin_token" value="([^"]+)"')


def client_for(mx: Memex, *, secret: str = SECRET, https: bool = False) -> TestClient:
    app = build_app(mx, admin_secret=secret)
    base = "https://testserver" if https else "http://testserver"
    return TestClient(app, base_url=base, follow_redirects=False)


def post_signin(client: Any, credential: str, next: str = "/") -> Any:
    """Sign in as a browser does: load the form (its token and cookie), then post it.
    ``client`` is a TestClient or an httpx.Client; returns the POST's response."""
    page = client.get("/signin", follow_redirects=False)
    found = _SIGNIN_TOKEN.search(page.text)
    assert found, "no signin_token field in the sign-in page"
    data = {"credential": credential, "next": next, "signin_token": found.group(1)}
    return client.post("/signin", data=data, follow_redirects=False)


def sign_in(client: TestClient, credential: str) -> Any:
    response = post_signin(client, credential)
    assert response.status_code == 303, response.text[:500]
    return response


def csrf_of(html: str) -> str:
    found = _CSRF.search(html)
    assert found, "no csrf_token field in the page"
    return found.group(1)


def open_home(home: Path) -> Memex:
    return Memex(home)
