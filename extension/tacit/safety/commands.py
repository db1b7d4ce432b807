"""Dangerous commands in a stored "fix that worked".

A fix pattern is replayed into a later prompt as advice, so one agent reply that said
``curl … | sh`` must not become a standing recommendation. ``dangerous_command(text)`` returns the
reason a text is unsafe to keep as a fix, or None; ``find_dangers`` lists every reason with a stable
id.

Design notes: docs/design/safety.md#tacitsafetycommands"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tacit.lazyre import lazy
from tacit.safety import secrets
from tacit.safety.text import as_text


@dataclass(frozen=True, slots=True)
class Danger:
    """One reason a text must not be kept as a fix."""

    id: str
    reason: str


REASONS = {
    "pipe_to_shell": "pipes a download into a shell",
    "delete_outside_project": "deletes recursively outside the project",
    "disk_overwrite": "overwrites a disk or file system",
    "tls_disabled": "disables TLS certificate checks",
    "world_writable": "makes files world-writable (chmod 777)",
    "credential": "contains a credential",
    "sudo_package_install": "installs language packages with sudo",
    "security_disabled": "disables a system security control",
    "skip_hooks": "skips the repository's commit hooks (--no-verify)",
}

# Negation: advice against a command
_CLAUSE_END = lazy(r"[.!?;,\n](?=[^.!?;,\n]*$)")
_NEGATED = lazy(
    r"(?:\b(?:never|not|no|avoid|stop|without|instead\s+of|rather\s+than|cannot|dont|don't|do\s+not"
    r"|shouldn't|should\s+not|must\s+not|mustn't|won't|can't)|n't)[\s*_`'\"(]*"
    r"(?:(?:ever|again|please|just|run|running|use|using|type|typing|execute|executing|do|doing|call"
    r"|calling|pipe|piping|set|setting|pass|passing|add|adding|try|trying|recommend|with|the|a|any)\b"
    r"[\s*_`'\"(]*){0,3}$",
    re.IGNORECASE,
)


def _negated(text: str, start: int) -> bool:
    window = text[max(0, start - 80):start]
    cut = _CLAUSE_END.search(window)
    return _NEGATED.search(window[cut.end():] if cut else window) is not None


# Rules
_DOWNLOADERS = r"(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod|aria2c|fetch|http|xh)"
_SHELLS = (r"(?:(?:ba|z|k|da|c|tc|fi|a)?sh|pwsh|powershell|iex|invoke-expression|python[0-9.]*|perl|ruby"
           r"|node|php|source)")
_PIPE_TO_SHELL = lazy(
    r"(?<![\w.-])" + _DOWNLOADERS + r"\b[^\n|;&]{0,500}?\|[ \t]*(?:sudo[ \t]+(?:-\S+[ \t]+)*)?"
    r"(?:env[ \t]+(?:\S+=\S*[ \t]+){0,5})?" + _SHELLS + r"\b"
    r"|(?<![\w.-])(?:(?:ba|z|k|da)?sh|source|\.)[ \t]+(?:-\S+[ \t]+){0,3}<\([ \t]*" + _DOWNLOADERS + r"\b"
    r"|(?<![\w.-])(?:(?:ba|z|k|da)?sh|python[0-9.]*|perl|ruby|node)[ \t]+-c[ \t]+[\"']?\$\([ \t]*" + _DOWNLOADERS + r"\b"
    r"|(?<![\w.-])eval[ \t]+[\"']?\$\([ \t]*" + _DOWNLOADERS + r"\b"
    r"|(?<![\w.-])(?:iex|invoke-expression)[ \t]*\(?[ \t]*\(?[ \t]*(?:iwr|irm|invoke-webrequest|invoke-restmethod"
    r"|new-object[ \t]+(?:system\.)?net\.webclient)\b",
    re.IGNORECASE,
)

_RM = lazy(r"(?<![\w./-])(?P<sudo>sudo[ \t]+(?:-\S+[ \t]+){0,4})?rm(?=[ \t])(?P<rest>[^\n;&|`)]{0,400}+)")
_FIND_DELETE = lazy(
    r"(?<![\w./-])find[ \t]+(?P<path>\S{1,300}+)[^\n;&|]{0,300}?[ \t]-(?:delete\b|exec[ \t]+rm\b)"
)
_WINDOWS_DELETE = lazy(
    r"(?<![\w.-])(?:remove-item|rm|del|erase|ri)[ \t][^\n;|]{0,300}?-recurse\b[^\n;|]{0,300}"
    r"|(?<![\w.-])(?:rd|rmdir)[ \t]+/s\b[^\n;&|]{0,300}",
    re.IGNORECASE,
)
_TMP = ("/tmp/", "/var/tmp/", "/private/tmp/")
_RM_FLAGS = frozenset("rRfivdIPWx")
_VARIABLE_ONLY = lazy(r"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?/?\*?")
_HOME_VARS = lazy(r"(?:\$\{?HOME\}?|\$env:(?:HOME|USERPROFILE)|%USERPROFILE%|%HOMEPATH%)(?![A-Za-z0-9_])",
                        re.IGNORECASE)
_WINDOWS_ROOT = lazy(r"[A-Za-z]:(?:[\\/]|$)")


_WHOLE_TREE = frozenset(("*", ".*", ".", "./", "./*", "./.*", ".git", "./.git", ".git/"))


def _outside(target: str, *, whole_tree: bool = True) -> bool:
    """Whether deleting ``target`` recursively reaches outside the working tree
    (or, with ``whole_tree``, takes the whole tree or its history)."""
    target = target.strip("\"'")
    if target in _WHOLE_TREE:
        return whole_tree
    if target.startswith("/"):
        rest = next((target[len(prefix):] for prefix in _TMP if target.startswith(prefix)), None)
        return rest is None or rest.strip("/") in ("", "*", ".*")
    if target.startswith("~") or _HOME_VARS.match(target) or _WINDOWS_ROOT.match(target):
        return True
    if _VARIABLE_ONLY.fullmatch(target):
        return True  # an unset variable makes this "/"
    depth = 0
    for part in re.split(r"[\\/]+", target):
        if part == "..":
            depth -= 1
            if depth < 0:
                return True
        elif part not in ("", "."):
            depth += 1
    return False


def _rm_danger(match) -> bool:
    tokens = match.group("rest").split()
    recursive, targets, options_done = False, [], False
    for token in tokens:
        bare = token.strip("\"'")
        if not options_done and bare == "--":
            options_done = True
        elif not options_done and bare.startswith("--"):
            recursive |= bare == "--recursive"
            if bare == "--no-preserve-root":
                return True
        elif not options_done and bare.startswith("-") and len(bare) > 1:
            flags = bare[1:]
            if set(flags) <= _RM_FLAGS:  # -rf, -fr, -Rfv …
                recursive |= "r" in flags or "R" in flags
            else:  # PowerShell's rm alias: -Recurse, -r, -rec
                recursive |= "recurse".startswith(flags.lower())
        else:
            targets.append(token)
    return recursive and (bool(match.group("sudo")) or any(_outside(target) for target in targets))


def _windows_delete_danger(match) -> bool:
    bares = (token.strip("\"'") for token in match.group().split()[1:])
    # a PowerShell parameter or a cmd switch (/s, /q) is no target
    return any(_outside(bare) for bare in bares
               if not (bare.startswith("-") or (bare.startswith("/") and len(bare) == 2)))


_DISK = lazy(
    r"(?<![\w.-])mkfs(?:\.\w+)?[ \t]+(?:-\S+[ \t]+)*/dev/"
    r"|(?<![\w.-])dd[ \t][^\n;&|]{0,200}\bof=/dev/(?:sd|nvme|hd|disk|rdisk|xvd|vd|mmcblk)"
    r"|>[ \t]*/dev/(?:sd[a-z]|nvme\d|disk\d|rdisk\d)"
)

_TLS = lazy(
    r"\bverify[ \t]*=[ \t]*false\b|\bverify_ssl[ \t]*[=:][ \t]*false\b|\bssl_verify[ \t]*[=:][ \t]*(?:false|0|no)\b"
    r"|\bcheck_hostname[ \t]*=[ \t]*false\b|\bcert_reqs[ \t]*=[ \t]*[\"']?(?:ssl\.)?cert_none\b"
    r"|\bssl\._create_unverified_context\b|\bcreate_default_context\(\)\.check_hostname[ \t]*=[ \t]*false"
    r"|(?<![\w-])--insecure\b|(?<![\w-])--no-check-certificate\b|(?<![\w-])--insecure-skip-tls-verify\b"
    r"|\bnode_tls_reject_unauthorized[ \t]*=[ \t]*[\"']?0\b|\brejectunauthorized[\"']?[ \t]*:[ \t]*false\b"
    r"|\bstrict-ssl[ \t]*(?:=|[ \t])[ \t]*false\b|\bhttp\.sslverify[ \t]*(?:=|[ \t])[ \t]*(?:false|0|no)\b"
    r"|\bgit_ssl_no_verify[ \t]*=[ \t]*[\"']?(?:1|true|yes)\b|\bpythonhttpsverify[ \t]*=[ \t]*[\"']?0\b"
    r"|(?<![\w-])--trusted-host\b|\bglobal\.trusted-host\b|\binsecureskipverify[\"']?[ \t]*:[ \t]*true\b"
    r"|\bssl_verify[ \t]+(?:false|no|0)\b|\bcurlopt_ssl_verifypeer[^\n]{0,20}?\b(?:false|0)\b",
    re.IGNORECASE,
)
_CURL = lazy(r"(?<![\w.-])curl(?=[ \t])(?P<rest>[^\n;&|]{0,500}+)", re.IGNORECASE)
_SHORT_OPTS = lazy(r"-[A-Za-z]{1,12}")

_CHMOD = lazy(r"(?<![\w.-])chmod[ \t]+(?:(?:-[A-Za-z]+|--[\w-]+(?:=\S+)?)[ \t]+){0,4}(?P<mode>[0-7]{3,4}\b|[ugoa,+=\-rwxXst]{2,30}+)")
_SUDO_INSTALL = lazy(
    r"(?<![\w.-])sudo[ \t]+(?:-\S+[ \t]+){0,4}(?:pip[0-9.]*|python[0-9.]*[ \t]+-m[ \t]+pip|npm|yarn|pnpm|gem|cargo)"
    r"[ \t]+(?:(?:-\S+|global)[ \t]+){0,3}(?:install|i|add)\b",
    re.IGNORECASE,
)
_SECURITY = lazy(
    r"\bsetenforce[ \t]+0\b|\bselinux[ \t]*=[ \t]*disabled\b|\bufw[ \t]+disable\b"
    r"|\bsystemctl[ \t]+(?:stop|disable|mask)[ \t]+(?:firewalld|apparmor|ufw)\b|\biptables[ \t]+-f\b"
    r"|\bspctl[ \t]+--master-disable\b|\bcsrutil[ \t]+disable\b"
    r"|\bset-mppreference[ \t]+-disablerealtimemonitoring[ \t]+\$?true\b"
    r"|\bset-executionpolicy[ \t]+(?:-executionpolicy[ \t]+)?(?:unrestricted|bypass)\b",
    re.IGNORECASE,
)
_SKIP_HOOKS = lazy(
    r"(?<![\w.-])git[ \t]+(?:-c[ \t]+\S+[ \t]+)*(?:commit|push|merge|rebase|am|cherry-pick|revert)\b"
    r"[^\n;&|]{0,200}?(?:[ \t]--no-verify\b|(?<=commit)[^\n;&|]{0,200}?[ \t]-n\b)"
)


def _world_writable(match) -> bool:
    mode = match.group("mode")
    if mode.isdigit():
        return int(mode[-1]) & 2 == 2
    for clause in mode.split(","):
        who, _, perms = clause.partition("+") if "+" in clause else clause.partition("=")
        if ("o" in who or "a" in who) and "w" in perms:
            return True
    return False


def _curl_insecure(match) -> bool:
    return any("k" in token and _SHORT_OPTS.fullmatch(token) for token in match.group("rest").split())


# id -> its tests ``(words, regex, accept)``, one of which must pass: the regex runs only when one of the
# words (every match holds one) is in the lower-cased text ("credential": tacit.safety.secrets)
_TESTS = {
    "pipe_to_shell": [(("|", "<(", "$(", "iex", "invoke-expression"), _PIPE_TO_SHELL, None)],
    "delete_outside_project": [(("rm",), _RM, _rm_danger),
                               (("find",), _FIND_DELETE, lambda m: _outside(m.group("path"), whole_tree=False)),
                               (("recurse", "/s"), _WINDOWS_DELETE, _windows_delete_danger)],
    "disk_overwrite": [(("/dev/", "mkfs"), _DISK, None)],
    "tls_disabled": [(("verify", "insecure", "check-certificate", "tls", "trusted-host", "rejectunauthorized",
                       "cert_none", "unverified", "check_hostname", "strict-ssl", "sslverify", "ssl_verify",
                       "skipverify"), _TLS, None),
                     (("curl",), _CURL, _curl_insecure)],
    "world_writable": [(("chmod",), _CHMOD, _world_writable)],
    "sudo_package_install": [(("sudo",), _SUDO_INSTALL, None)],
    "security_disabled": [(("setenforce", "selinux", "ufw", "systemctl", "iptables", "spctl", "csrutil",
                            "mppreference", "executionpolicy"), _SECURITY, None)],
    "skip_hooks": [(("git",), _SKIP_HOOKS, None)],
}


def _first(rx: re.Pattern, text: str, accept=None) -> bool:
    return any((accept is None or accept(match)) and not _negated(text, match.start()) for match in rx.finditer(text))


def _found(danger_id: str, text: str, low: str) -> bool:
    if danger_id == "credential":
        return bool(secrets.find_secrets(text))
    return any(any(word in low for word in words) and _first(rx, text, accept)
               for words, rx, accept in _TESTS[danger_id])


def find_dangers(text) -> list[Danger]:
    """Every reason ``text`` is unsafe to keep as a fix, one per id, in a fixed order."""
    text = as_text(text)
    if not text:
        return []
    low = text.lower()
    return [Danger(danger_id, reason) for danger_id, reason in REASONS.items() if _found(danger_id, text, low)]


def dangerous_command(text) -> str | None:
    """The reason ``text`` recommends something dangerous, or None."""
    dangers = find_dangers(text)
    return dangers[0].reason if dangers else None
