"""A browser at one client address of this machine's loopback (127.0.0.x), talking to a real
server started by the test (pytest-django's live_server): the server reads the address from the
connection itself, as it would from anyone's. Cookies are kept, redirects are not followed, and a
form is posted with the CSRF token a browser would send."""

import dataclasses
import http.client
import http.cookiejar
import re
import urllib.error
import urllib.parse
import urllib.request


class BoundHandler(urllib.request.HTTPHandler):
    """Connections leave from `address`."""

    def __init__(self, address: str):
        super().__init__()
        self.address = address

    def http_open(self, req):
        return self.do_open(http.client.HTTPConnection, req, source_address=(self.address, 0))


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


@dataclasses.dataclass
class Answer:
    status: int
    headers: http.client.HTTPMessage
    text: str

    @property
    def location(self) -> str:
        """Where a redirect leads, as a path."""
        return urllib.parse.urlsplit(self.headers.get("Location", "")).path


class From:
    def __init__(self, base: str, address: str, language: str = "en"):
        self.base, self.address, self.language = base, address, language
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(
            BoundHandler(address), urllib.request.HTTPCookieProcessor(self.jar), NoRedirect
        )

    def request(self, path: str, data: dict | None = None) -> Answer:
        body = urllib.parse.urlencode(data).encode() if data is not None else None
        request = urllib.request.Request(self.base + path, data=body)
        request.add_header("Accept-Language", self.language)
        try:
            with self.opener.open(request, timeout=30) as answer:
                return Answer(answer.status, answer.headers, answer.read().decode())
        except urllib.error.HTTPError as error:
            return Answer(error.code, error.headers, error.read().decode())

    def get(self, path: str) -> Answer:
        return self.request(path)

    def post(self, path: str, data: dict) -> Answer:
        if not self.csrf_token():
            self.get(path)
        return self.request(path, {**data, "csrfmiddlewaretoken": self.csrf_token()})

    def csrf_token(self) -> str:
        return next((c.value for c in self.jar if c.name == "csrftoken"), "")

    def sign_in(self, email: str, password: str, next_path: str = "") -> Answer:
        path = "/accounts/login/" + (f"?next={next_path}" if next_path else "")
        return self.post(path, {"login": email, "password": password})

    def follow_reset_link(self, mail_body: str, password: str) -> Answer:
        """Open the password reset link of a mail and choose `password`."""
        link = re.search(r"/accounts/password/reset/key/[^\s/]+/", mail_body).group(0)
        answer = self.get(link)
        form = answer.location if answer.status == 302 else link
        return self.post(form, {"password1": password, "password2": password})
