"""The deployed nginx configuration (deploy/nginx/), made runnable on one machine by whoever is not
root and has no certificate: the tests of tests/deploy/ and `make bench` (bench/run.py).

`nginx_prefix(...)` writes an nginx prefix directory holding congopay.conf and its snippet with
only their addresses changed (upstream, listening ports, no TLS, the static files' folder), and a
minimal nginx.conf of its own standing in for Debian's /etc/nginx/nginx.conf; `nginx_command`
is the command that runs it in the foreground with Debian's /usr/sbin/nginx. Every other line is
as deployed."""

import getpass
from pathlib import Path

NGINX = "/usr/sbin/nginx"
DEPLOY = Path(__file__).resolve().parent / "nginx"
# The deployed files' addresses, as substituted here: every other line is as deployed.
UPSTREAM = "server 127.0.0.1:8000;"
HTTPS = "listen 443 ssl http2;"
HTTP = "listen 80;"
CERTIFICATE = (
    "    ssl_certificate /etc/letsencrypt/live/pay.example.cd/fullchain.pem;\n"
    "    ssl_certificate_key /etc/letsencrypt/live/pay.example.cd/privkey.pem;\n"
)
STATIC_ALIAS = "alias /srv/congopay/staticfiles/;"


def render(text: str, replacements: dict[str, str]) -> str:
    """`text` with each of `replacements` made; each must be there exactly once."""
    for old, new in replacements.items():
        if text.count(old) != 1:
            raise ValueError(f"{old!r} is not once in the deployed configuration")
        text = text.replace(old, new)
    return text


def nginx_prefix(
    prefix: Path,
    *,
    upstream_ports: tuple[int, ...],
    port: int,
    http_port: int,
    static_root: Path,
    worker_processes: str = "1",
    access_log: bool = True,
) -> Path:
    """Write an nginx prefix at `prefix` (created) serving the deployed site on 127.0.0.1:`port`
    (plain HTTP in place of 443, the redirect of port 80 on `http_port`) in front of the gunicorns
    at 127.0.0.1:`upstream_ports`, with its pid, logs and temporary files under `prefix`; the path
    of its nginx.conf."""
    (prefix / "conf" / "snippets").mkdir(parents=True)
    (prefix / "logs").mkdir()
    site = render(
        (DEPLOY / "congopay.conf").read_text(),
        {
            UPSTREAM: "\n    ".join(f"server 127.0.0.1:{up};" for up in upstream_ports),
            HTTPS: f"listen 127.0.0.1:{port};",
            HTTP: f"listen 127.0.0.1:{http_port};",
            CERTIFICATE: "",
        },
    )
    snippet = render(
        (DEPLOY / "snippets" / "congopay.conf").read_text(),
        {STATIC_ALIAS: f"alias {static_root}/;"},
    )
    (prefix / "conf" / "congopay.conf").write_text(site)
    (prefix / "conf" / "snippets" / "congopay.conf").write_text(snippet)
    temp = "\n".join(
        f"    {kind}_temp_path {prefix / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    log = f"access_log {prefix / 'logs' / 'access.log'};" if access_log else "access_log off;"
    conf = prefix / "conf" / "nginx.conf"
    conf.write_text(
        f"""daemon off;
user {getpass.getuser()};
worker_processes {worker_processes};
pid {prefix / "nginx.pid"};
error_log {prefix / "logs" / "error.log"} info;
events {{
    worker_connections 1024;
}}
http {{
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    sendfile on;
    {log}
{temp}
    include congopay.conf;
}}
"""
    )
    return conf


def nginx_command(prefix: Path) -> list[str]:
    """The command running the nginx of `prefix` (nginx_prefix) in the foreground."""
    return [
        NGINX,
        "-p",
        str(prefix),
        "-c",
        str(prefix / "conf" / "nginx.conf"),
        "-e",
        str(prefix / "logs" / "error.log"),
    ]
