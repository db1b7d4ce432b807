"""The scanner's rule table: what injection, hidden instructions and exfiltration look like.

Each rule is a regex with trigger words (it runs only when its words are in the text), the view of
the text it reads, and an optional check that picks or refuses its pattern id; the secret rules come
from :mod:`tacit.safety.secrets`. The scan loop is :mod:`tacit.safety.scanner`.

Design notes: docs/design/safety.md#tacitsafetyscanner"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tacit.lazyre import lazy
from tacit.safety import secrets

# "␣" in a rule's regex means "a word gap": whitespace, markdown emphasis or quotes,
# so "**ignore** all previous instructions" reads as the phrase it is.
_GAP = r"[\s*_`~\"'\u201c\u201d\u2018\u2019]{1,8}"


@dataclass(frozen=True)
class _Rule:
    pattern_id: str | None  # None: ``check`` returns the id (one rule, several ids)
    regex: str
    flags: int = 0
    triggers: tuple = ()  # tuple of groups; every group needs one word in the text
    # "lower": the normalised text lower-cased (patterns are written in lower
    # case and matched case-sensitively, several times faster than IGNORECASE);
    # "prepared": the normalised text as is; "raw": the text exactly as given
    view: str = "lower"
    check: object = None  # (match, text) -> pattern id | None
    negation: str | None = None  # "adjacent" | "clause": skip negated matches
    # characters every match contains (one of them): a rule whose subject holds
    # none of them cannot match and is not run — an exact, cheap pre-check
    requires: tuple = ()
    # (subject) -> False only when the regex cannot match: a finer exact
    # pre-check, run after ``requires``
    precheck: object = None
    compiled: object = None  # the regex already compiled (rules shared with tacit.safety.secrets)


# exfiltration: command and path checks
_PATH_KINDS = (
    (lazy(r"(?:^|[/=@:<~])\.env(?:\.(?:local|prod|production|staging|stage|development|dev|live))?$"),
     "exfiltration.env_file"),
    (lazy(r"(?:^|[/=@:<~])\.ssh/(?:id_[\w-]+|identity)$"), "exfiltration.ssh_key"),
    (lazy(r"(?:^|[/=@:<~])authorized_keys2?$"), "exfiltration.authorized_keys"),
    (lazy(r"(?:^|[/=@:<~])[._]netrc$"), "exfiltration.netrc"),
    (lazy(r"(?:^|[=@:<])/etc/(?:g?shadow|sudoers|master\.passwd)$"), "exfiltration.shadow"),
    (lazy(
        r"(?:^|[/=@:<~])(?:\.aws/credentials|\.git-credentials|\.pgpass|\.docker/config\.json"
        r"|\.pypirc|gcloud/(?:credentials\.db|access_tokens\.db"
        r"|application_default_credentials\.json)|\.config/gh/hosts\.yml|\.vault-token"
        r"|\.terraformrc|\.cargo/credentials(?:\.toml)?|\.gnupg/(?:secring\.gpg|private-keys-v1\.d))$"),
     "exfiltration.credential_file"),
)
_SENSITIVE_WORDS = (
    ".env", ".ssh", "authorized_keys", "netrc", "/etc/shadow", "/etc/gshadow", "/etc/sudoers",
    "master.passwd", ".aws/credentials", ".git-credentials", ".pgpass", ".docker/config.json",
    ".pypirc", "gcloud/", "gh/hosts.yml", ".vault-token",
    ".terraformrc", ".cargo/credentials", ".gnupg/",
)


_SSH_DIR = lazy(r"(?:^|[/=@:<~])\.ssh/?$")


def _classify_path(token: str, *, whole_dirs: bool = False) -> str | None:
    """Which sensitive file a command-line token names, if any (``whole_dirs``: the ~/.ssh folder too,
    archived or copied away wholesale)."""
    token = token.strip("\"'`()[]{},;").rstrip(".:!?").lstrip("<")
    found = next((pattern_id for rx, pattern_id in _PATH_KINDS if rx.search(token)), None)
    return found or ("exfiltration.ssh_key" if whole_dirs and _SSH_DIR.search(token) else None)


_SECRET_VAR = lazy(r"(?:\$env:|\$\{?|%)(?P<var>[A-Za-z_][A-Za-z0-9_]{0,80}+)")
_SECRET_PARTS = frozenset(
    ("KEY", "APIKEY", "TOKEN", "SECRET", "SECRETS", "PASSWORD", "PASSWD", "PASS", "PW",
     "CREDENTIAL", "CREDENTIALS", "CREDS", "AUTH", "PAT", "COOKIE", "COOKIES", "PRIVATE", "JWT")
)
_CAMEL_SPLIT = lazy(r"(?<=[a-z0-9])(?=[A-Z])")


def _is_secret_var(name: str) -> bool:
    parts = _CAMEL_SPLIT.sub("_", name).upper().split("_")
    return any(
        part in _SECRET_PARTS or (len(part) > 3 and part.endswith(("KEY", "TOKEN", "SECRET")))
        for part in parts
        if part
    )


def _has_secret_var(segment: str) -> bool:
    return any(_is_secret_var(m.group("var")) for m in _SECRET_VAR.finditer(segment))


_SEGMENT_END = lazy(r"\|\|?|&&|;")
_UPLOAD_MARKERS = lazy(
    r"(?:@|<\s*|(?:-T|--upload-file|--post-file|--body-file|-InFile|--data-binary|--data|-d)[\s=]+@?)"
    r"[\"']?(?P<path>[^\s\"'|;&<>]{1,300}+)",
    re.IGNORECASE,
)
_ENV_SUBST = lazy(r"\$\(\s*(?:env|printenv|set)\s*\)|`\s*(?:env|printenv)\s*`")
_IDENTITY_OPTS = ("-i", "-o", "-e", "--rsh", "--identity")


def _segment(rest: str) -> str:
    return _SEGMENT_END.split(rest, 1)[0]


def _network_check(match, _text):
    """curl/wget/scp/nc … : secret variables, $(env), uploaded sensitive files."""
    cmd = match.group("cmd").lower()
    segment = _segment(match.group("rest"))
    if _has_secret_var(segment):
        return "exfiltration.curl_secret"
    if _ENV_SUBST.search(segment):
        return "exfiltration.env_dump"
    if cmd in ("curl", "wget", "xh", "httpie", "invoke-webrequest", "invoke-restmethod", "iwr", "irm"):
        kinds = (_classify_path(marker.group("path")) for marker in _UPLOAD_MARKERS.finditer(segment))
        return next(filter(None, kinds), None)
    # scp / rsync / sftp / nc / socat / rclone: any argument that is a sensitive file, but an identity
    # file (the key is used to log in, not sent anywhere)
    tokens = segment.split()
    kinds = (_classify_path(token, whole_dirs=True) for previous, token in zip(["", *tokens], tokens)
             if not (previous in _IDENTITY_OPTS or "identityfile" in f"{previous} {token}".lower()))
    return next(filter(None, kinds), None)


_ARCHIVERS = ("tar", "zip", "7z", "gzip", "gpg", "openssl")


def _read_check(match, _text):
    """cat/less/base64/tar … of a sensitive file."""
    cmd = match.group("cmd").lower()
    segment = _segment(match.group("rest"))
    for token in segment.split():
        bare = token.strip("\"'`")
        if token.startswith((">", "<<", "2>", "&>")):
            break  # writing to the file (cat > .env <<EOF) is not reading it
        kind = _classify_path(bare, whole_dirs=cmd in _ARCHIVERS)
        if kind:
            return kind
        if cmd in _ARCHIVERS or bare.startswith("-") or bare.isdigit():
            continue
        if not ("/" in bare or "." in bare or bare.startswith(("~", "$"))):
            break  # "more than one .env" is prose, not a command line
    return None


_PIPE_SOURCE = lazy(
    r"^\s*(?:sudo\s+)?(?:env|printenv|set|history|export\s+-p|(?:Get-ChildItem|gci|dir|ls)\s+env:)\b",
    re.IGNORECASE,
)


def _pipe_check(match, text):
    """``… | curl``: what is being piped out?"""
    start = match.start()
    line_start = text.rfind("\n", max(0, start - 300), start) + 1 or max(0, start - 300)
    left = text[line_start:start]
    for sep in (";", "&&"):
        left = left.rsplit(sep, 1)[-1]
    if _has_secret_var(left):
        return "exfiltration.curl_secret"
    return "exfiltration.env_dump" if _PIPE_SOURCE.search(left) else None


_EXFIL_VERBS_ENV = frozenset(
    ("send", "upload", "post", "transmit", "exfiltrate", "email", "e-mail", "forward", "leak",
     "paste", "print", "dump", "output", "reveal", "attach", "share")
)


def _prose_file_check(match, _text):
    kind = _classify_path(match.group("path"))
    if not kind:
        return None
    if kind == "exfiltration.env_file" and match.group("verb").lower() not in _EXFIL_VERBS_ENV:
        return None  # "use python-dotenv to read .env" is how apps work
    return kind


_UNRESTRICTED_VERB = lazy(r"\b(?:act|behave|respond|reply|operate|pretend|roleplay|role-play|answer)\b", re.IGNORECASE)


def _act_unrestricted_check(match, text):
    """"… without restrictions" counts when an act/behave/respond verb leads the same sentence."""
    start = match.start()
    window_start = max(0, start - 80)
    window = text[window_start:start]
    cut = max(window.rfind("."), window.rfind("\n"))
    verbs = list(_UNRESTRICTED_VERB.finditer(window, cut + 1))
    if not verbs or negated(text, window_start + verbs[-1].start(), "adjacent"):
        return None
    return "injection.act_unrestricted"


_HTTP_CALL = lazy(
    r"\b(?:requests|httpx|urllib3?|aiohttp|session|client|axios|fetch|got|http)\b[\w.]{0,30}\s*\(", re.IGNORECASE
)


def _whole_env_check(match, text):
    """The whole environment (not one variable) handed to an HTTP call on the same line."""
    start = match.start()
    line_start = text.rfind("\n", max(0, start - 200), start) + 1 or max(0, start - 200)
    return "exfiltration.env_dump" if _HTTP_CALL.search(text, line_start, start) else None


def _authorized_keys_write_check(match, _text):
    token = match.group("path")
    return "exfiltration.authorized_keys" if token.rstrip("\"'").endswith(("authorized_keys", "authorized_keys2")) else None


def _image_check(match, _text):
    url = match.group("url")
    templated = any(marker in url for marker in ("{{", "${", "$(", "%7B%7B", "%7b%7b")) or _has_secret_var(url)
    return "exfiltration.markdown_image" if templated else None


NETWORK_CMDS = ("curl", "wget", "scp", "rsync", "sftp", "nc", "ncat", "netcat", "socat", "rclone",
                 "xh", "httpie", "invoke-webrequest", "invoke-restmethod", "iwr", "irm")
READ_CMDS = ("cat", "less", "more", "head", "tail", "bat", "batcat", "base64", "xxd", "od", "hexdump",
              "strings", "tac", "get-content") + _ARCHIVERS
ANCHOR_MARK = "\x00"  # anchored trigger words are "\x00" + command: never a text's substring test


def _command_rule(commands: tuple, rest: int, **fields) -> _Rule:
    """A rule for a command line of ``commands``; its trigger words: the command ending a token
    (``ANCHOR_MARK`` + command; docs/design/safety.md)."""
    regex = rf"(?<![\w.-])(?P<cmd>{'|'.join(commands)})(?=[ \t])(?P<rest>[^\n]{{0,{rest}}}+)"
    triggers = (tuple(ANCHOR_MARK + command for command in commands), *fields.pop("triggers", ()))
    return _Rule(None, regex, triggers=triggers, negation="adjacent", **fields)


# Order = report order (category order, then most specific first).
_RULE_SPECS: tuple[_Rule, ...] = (
    # injection
    _Rule(
        "injection.ignore_previous",
        r"\b(?:ignore|disregard|forget|override|bypass|abandon|discard|disobey)␣"
        r"(?:(?:all|any|each|every|of|the|your|my|these|those|and|both|such|earlier|above|prior|previous)␣){0,4}?"
        r"(?:previous|prior|above|earlier|preceding|former|foregoing|original|initial|system|developer|safety)␣"
        r"(?:(?:all|any|of|the|your|and|other)␣){0,2}?"
        r"(?:instructions?|directions|directives?|prompts?|rules|guidelines|guidance|orders|programming)\b"
        r"|\b(?:ignore|disregard|forget|override|bypass|abandon|discard|disobey)␣"
        r"(?:(?:all|any|each|every|of|the|your|my|these|those)␣){0,3}?"
        r"(?:instructions?|directives?|prompts?|rules|guidelines|guidance)␣"
        r"(?:(?:that|which)␣)?(?:you(?:␣(?:were|have|had)|'ve)␣been␣(?:given|told)|you␣(?:were|got)␣(?:given|told)"
        r"|(?:given|provided|written|stated|listed)␣(?:to␣you␣)?(?:above|before|earlier|previously)"
        r"|above\b|before␣this|so␣far|until␣now|up␣to␣now)"
        r"|\b(?:ignore|disregard|forget)␣(?:everything|all|anything)␣"
        r"(?:(?:that␣)?you(?:␣(?:were|have|had)|'ve|'d)␣been␣told"
        r"|(?:that␣(?:was|is|has␣been)␣)?(?:said|written|stated|mentioned)␣(?:above|before|earlier|previously|so␣far))\b",
        triggers=(("ignore", "disregard", "forget", "override", "bypass", "abandon", "discard", "disobey"),),
        negation="adjacent",
    ),
    _Rule(  # "the previous instructions no longer apply"
        "injection.ignore_previous",
        r"\b(?:previous|prior|earlier|above|original|system)␣(?:instructions|rules|guidelines|directives)␣"
        r"(?:no␣longer␣apply|(?:do␣not|don't)␣apply␣anymore|are␣(?:now␣)?(?:void|cancell?ed|revoked|obsolete"
        r"|overridden|lifted))\b",
        triggers=(("apply", "void", "cancel", "revoked", "obsolete", "overridden", "lifted"),),
        negation="adjacent",
    ),
    _Rule(  # the same request in a few other languages
        "injection.ignore_previous",
        r"(?:忽略|无视|忘记|忘掉|不要理会)掉?(?:之前|以前|先前|上面|前面|上述|以上|此前)?的?(?:所有|全部|一切)?"
        r"(?:之前|以前|先前|上面|前面|上述|以上)?的?(?:指令|指示|说明|规则|提示词|命令)"
        r"|(?:以前|前|上記|これまで)の(?:すべての|全ての)?(?:指示|命令|ルール)を(?:すべて)?無視"
        r"|\bignore[zr]?␣(?:toutes␣)?(?:les␣)?(?:instructions|consignes|règles)␣(?:précédentes|antérieures|ci-dessus)"
        r"|\bignora␣(?:todas␣)?(?:las␣)?(?:instrucciones|reglas)␣(?:anteriores|previas)"
        r"|\bignorieren?␣(?:sie␣)?(?:alle␣)?(?:vorherigen|bisherigen|obigen)␣(?:anweisungen|regeln|instruktionen)",
        triggers=(("ignorez", "ignorer", "ignora", "ignorier", "忽略", "无视", "忘", "不要理会", "無視"),),
        negation="adjacent",
    ),
    _Rule(
        "injection.disregard_rules",
        r"\b(?:ignore|disregard|forget|bypass|override|abandon|break|violate|disable|circumvent|disobey|evade)␣"
        r"(?:(?:all|any|of|every)␣){0,2}(?:your|its|the␣assistant's|the␣model's|claude's)␣"
        r"(?:(?:own|core|safety|content|ethical|security|built-in|original)␣){0,2}"
        r"(?:rules|guidelines|guardrails|restrictions|limitations|filters|policies|principles|programming"
        r"|instructions|training|constraints|safeguards|ethics|directives|system␣prompt|alignment)\b"
        r"|\b(?:bypass|disable|circumvent|override|ignore|disregard|turn␣off|evade)␣(?:(?:all|any|the|every)␣){0,2}"
        r"(?:safety|ethical|moderation)␣(?:rules|guidelines|guardrails|filters?|policies|policy|restrictions|protocols)\b"
        r"|\b(?:bypass|disable|circumvent|ignore|disregard|evade)␣(?:(?:all|any|the|every)␣){0,2}guardrails\b",
        triggers=(("ignore", "disregard", "forget", "bypass", "override", "abandon", "break", "violate",
                   "disable", "circumvent", "disobey", "evade", "turn"),
                  ("your", "its", "assistant", "model", "claude", "safety", "ethical", "moderation", "guardrail")),
        negation="adjacent",
    ),
    _Rule(
        "injection.role_hijack",
        r"\byou(?:␣are|'re)␣now␣(?:(?:a|an|the|my|our)␣(?!(?:member|owner|maintainer|collaborator|contributor"
        r"|admin|administrator|part|user|reviewer|assignee)\b)|no␣longer\b|free␣(?:from|of)\b|unrestricted"
        r"|unfiltered|uncensored|unbound|jailbroken|liberated|(?-i:DAN)\b|in␣(?:[\w-]+␣){0,3}?mode\b"
        r"|(?:acting|operating|playing|roleplaying|pretending|speaking)␣(?:as|the␣role)\b|called\b|named\b)"
        r"|\bfrom␣now␣on,?␣you(?:␣are|'re|␣will␣be|␣shall␣be)␣(?:a|an|the|no␣longer|free|unrestricted"
        r"|unfiltered|(?-i:DAN)|called|named|evil)\b"
        r"|\b(?:pretend|imagine)␣(?:to␣be|(?:that␣)?you(?:␣are|'re))␣(?:an?␣)?(?:unrestricted|unfiltered|uncensored"
        r"|jailbroken|evil|malicious|rogue|(?-i:DAN)|different␣ai|ai␣without)\b"
        r"|\byour␣new␣(?:role|persona|identity|name|purpose|objective|goal|task)␣(?:is|will␣be)\b"
        r"|\byou␣(?:must|will|shall)␣now␣(?:obey|follow|comply␣with|listen␣to|act␣as|respond␣as)\b",
        triggers=(("you", "pretend", "imagine"),),
        flags=re.IGNORECASE, view="prepared",  # "DAN" is matched in capitals only
    ),
    _Rule(
        "injection.new_system_prompt",
        r"\b(?:new|updated|revised|real|actual|true|secret|hidden|override)␣system␣(?:prompt|instructions?|message)s?"
        r"\s*(?::|=|-+>|follows\b|reads\b|below\b|is␣as␣follows)"
        r"|\b(?:here␣is|here's|below␣is|begin|start␣of|following␣is)␣(?:your|the)␣(?:new|updated|real|actual|true)␣"
        r"(?:system␣)?(?:prompt|instructions)\b"
        r"|\bsystem␣prompt␣(?:override|overridden)\b"
        r"|\b(?:override|replace|overwrite)␣your␣(?:current␣|existing␣)?system␣(?:prompt|instructions|message)\b"
        r"|\byour␣(?:new|real|actual|updated)␣instructions␣(?:are|follow)\b"
        r"|\b(?:new|updated|real)␣instructions␣for␣(?:the␣)?(?:ai|assistant|agent|model|llm)\b",
        triggers=(("system", "instructions", "prompt"),),
    ),
    _Rule(
        "injection.fake_system_tag",
        r"<\s*/?\s*(?:system|system[-_ ]?(?:prompt|message|instructions?|reminder|override|note)|sys|im_start|im_end)"
        r"(?:\s[^<>\n]{0,60})?\s*>"
        r"|<\|\s*(?:system|im_start|im_end|endoftext|start_header_id|end_header_id|eot_id|begin_of_text)\s*\|>"
        r"|<<\s*/?\s*SYS\s*>>"
        r"|\[\s*/?\s*(?-i:SYSTEM|INST|SYS)(?:\s+(?-i:MESSAGE|PROMPT|NOTE|OVERRIDE))?\s*\]"
        r"|(?m:^[\t >#*]*(?-i:SYSTEM(?:\s+(?:PROMPT|MESSAGE|OVERRIDE|NOTICE|INSTRUCTIONS?))?|ADMIN\s+OVERRIDE"
        r"|DEVELOPER\s+(?:MESSAGE|INSTRUCTIONS?))\s*:)",
        triggers=(("system", "sys", "im_start", "im_end", "endoftext", "header_id", "eot_id",
                   "begin_of_text", "[inst", "/inst", "admin override", "developer message",
                   "developer instruction"),),
        flags=re.IGNORECASE, view="prepared",  # [SYSTEM] and SYSTEM: labels are capitals only
    ),
    _Rule(
        "injection.prompt_extraction",
        r"\b(?:reveal|print|output|repeat|leak|dump|disclose|share|send|show|display|recite|tell␣me|give␣me|write␣out)"
        r"␣(?:me␣)?(?:all␣(?:of␣)?)?your␣(?:(?:full|entire|complete|hidden|secret|original|initial|exact|verbatim"
        r"|system)␣){0,2}(?:system␣prompt|prompt|instructions|initial␣prompt|hidden␣instructions|context␣window)\b"
        r"|\b(?:reveal|leak|disclose|recite|repeat)␣(?:(?:the|full|entire|complete|hidden|original|initial|exact)␣)"
        r"{1,3}system␣prompt\b",
        triggers=(("prompt", "instructions", "context window"),),
        negation="adjacent",
    ),
    _Rule(
        "injection.jailbreak",
        r"\b(?-i:DAN|STAN|DUDE)␣(?:mode|prompt|jailbreak)\b"
        r"|\bdo␣anything␣now\b"
        r"|\bjailbr(?:ea|o)k(?:en|ed)?␣mode\b"
        r"|\b(?:enable|activate|enter|switch␣(?:to|into)|turn␣on|unlock)␣(?:the␣)?"
        r"(?:jailbreak|jailbroken|unrestricted|unfiltered|uncensored|evil|chaos)␣mode\b",
        triggers=(("dan", "stan", "dude", "anything now", "jailbr", "unrestricted", "unfiltered",
                   "uncensored", "evil", "chaos"),),
        flags=re.IGNORECASE, view="prepared",
        negation="adjacent",
    ),
    _Rule(
        None,
        # anchored on the rare half ("without restrictions"); the check looks
        # back for the verb, so a text full of "act" costs nothing extra
        r"\b(?:without|with␣no|free␣(?:of|from)|ignoring|regardless␣of)␣(?:(?:any|all|your|the|its)␣)?"
        r"(?:(?:moral|ethical|safety|content|usual|normal)␣)?(?:restrictions|limitations|filters|filtering|censorship"
        r"|guardrails|boundaries|ethics|morals|morality|rules|guidelines|policies|constraints)\b"
        r"(?!␣(?:on|for|about|regarding|around)\b)",
        triggers=(("without", "with no", "free of", "free from", "ignoring", "regardless"),
                  ("act", "behave", "respond", "reply", "operate", "pretend", "roleplay", "role-play", "answer")),
        check=_act_unrestricted_check,
    ),
    _Rule(
        "injection.act_unrestricted",
        r"\byou␣(?:have|now␣have)␣no␣(?:restrictions|limitations|rules|guidelines|filters|guardrails|boundaries"
        r"|ethical␣(?:limits|constraints))\b"
        r"|\b(?:unrestricted|unfiltered|uncensored|jailbroken|unaligned|amoral)␣(?:ai|assistant|model|llm|chatbot"
        r"|agent|version␣of␣yourself|mode)\b",
        triggers=(("have no", "unrestricted", "unfiltered", "uncensored", "jailbroken", "unaligned", "amoral"),),
        negation="adjacent",
    ),
    # hidden instructions
    _Rule(
        "hidden_instruction.conceal_from_user",
        r"\b(?:do␣not|don't|dont|never|must␣not|mustn't|should␣not|shouldn't)␣(?:ever␣)?"
        r"(?:tell|inform|notify|alert|warn|let␣on␣to)␣(?:the␣)?(?:user|human|operator|person)s?\b(?![ \t]*[\"'\u201c\u2018]|␣(?:to|how)\b)"
        r"|\b(?:do␣not|don't|dont|never)␣let␣(?:the␣)?(?:user|human)s?␣(?:know|see|find␣out|notice|learn)\b"
        r"|\b(?:do␣not|don't|dont|never)␣(?:mention|reveal|disclose|report)␣(?:this|that|it|these␣instructions"
        r"|this␣instruction|any␣of␣this|(?:what|that)␣you(?:'re|␣are|␣did|␣have␣done)?(?:␣doing)?)␣"
        r"to␣(?:the␣)?(?:user|human)s?\b"
        r"|\b(?:keep|hide)␣(?:this|it|these␣instructions|this␣instruction|this␣(?:rule|note|entry|memory)"
        r"|the␣(?:upload|change|request|command|action|instruction)s?)␣(?:(?:secret|hidden|private|confidential)␣)?"
        r"from␣(?:the␣)?(?:user|human)s?\b"
        r"|\bthe␣(?:user|human)␣(?:must|should|need)␣(?:not|never)␣(?:know|find␣out|learn|see␣this|notice|be␣told)\b"
        r"|\b(?:this|these)␣instructions?␣(?:is|are|must␣(?:be|stay|remain))␣(?:secret|hidden|confidential|invisible)\b"
        r"|\b(?:do␣not|don't|dont|never)␣(?:reveal|disclose|mention|repeat|acknowledge)␣(?:these|this|the␣above)␣"
        r"(?:instructions?|rules?|notes?|entry|entries|memory)\b"
        r"|\b(?:deny|pretend)␣(?:that␣)?(?:this|these|it)␣(?:(?:note|entry|memory|instruction|rule)s?␣)?"
        r"(?:exists?|does␣not␣exist|doesn't␣exist|never␣existed|is␣not␣there|was␣never␣(?:added|written))\b",
        triggers=(("user", "human", "operator", "person", "instruction", "rule", "note", "entr", "memory",
                   "exist"),
                  # every alternative above holds one of these: "user" and "memory"
                  # alone are everyday words in what tacit stores
                  ("not", "n't", "dont", "never", "keep", "hide", "secret", "hidden", "confidential",
                   "invisible", "deny", "pretend")),
    ),
    _Rule(
        "hidden_instruction.conceal_from_user",
        r"\bwithout␣(?:telling|informing|notifying|alerting)␣(?:the␣)?(?:user|human)s?\b"
        r"|\bwithout␣(?:the␣)?(?:user|human|anyone|them)(?:'s|s')?␣(?:knowing|knowledge|noticing|awareness|realizing|seeing)\b",
        triggers=(("without",),),
        negation="clause",
    ),
    _Rule(
        "hidden_instruction.html_comment",
        r"<!--[ \t]*(?:(?:note|message|instructions?)[ \t]+(?:to|for)[ \t]+(?:the[ \t]+)?)?"
        r"(?:ai|assistant|agent|claude|llm|model|chatgpt|gpt|copilot|hermes|codex)\b[ \t]*[:,-]",
        triggers=(("<!--",),),
    ),
    _Rule(
        "hidden_instruction.covert_action",
        r"\b(?:secretly|covertly|surreptitiously|stealthily)␣(?:send|upload|post|transmit|forward|exfiltrate|email"
        r"|copy|leak|share|include|append|insert|add|run|execute|install|modify|change|delete|remove|write|record"
        r"|log|store|save|collect|download|disable|open|push|commit|embed|inject)\b"
        r"|\b(?:silently|quietly)␣(?:send|upload|post|transmit|forward|exfiltrate|email|leak|share|collect)\b",
        triggers=(("secretly", "covertly", "surreptitiously", "stealthily", "silently", "quietly"),),
        negation="adjacent",
    ),
    # exfiltration
    _command_rule(NETWORK_CMDS, 400, check=_network_check),
    _Rule(
        None,
        r"\|[ \t]*(?:curl|wget|xh|nc|ncat|netcat|socat|scp|rsync|http)\b",
        triggers=(NETWORK_CMDS + ("http",), ("|",)),
        check=_pipe_check,
    ),
    _command_rule(READ_CMDS, 300, triggers=(_SENSITIVE_WORDS,), check=_read_check),
    _Rule(
        None,
        r"(?:>>?|\btee(?:[ \t]+-a)?)[ \t]*[\"']?(?P<path>[^\s\"'|;&<>]{1,300}+)",
        triggers=(("authorized_keys",),),
        check=_authorized_keys_write_check,
    ),
    _Rule(
        None,
        r"\b(?P<verb>send|upload|post|transmit|exfiltrate|email|e-mail|forward|leak|paste|print|dump|output"
        r"|display|reveal|show|read|open|attach|share)␣"
        r"(?:(?:me|us|the|your|user's|contents?|of|all|their|its|file|files|private|key|keys|at|in|from)␣){0,5}"
        r"(?P<path>[^\s\"'`,;()<>]{1,300}+)",
        triggers=(_SENSITIVE_WORDS,),
        check=_prose_file_check,
        negation="adjacent",
    ),
    _Rule(
        "exfiltration.send_secrets",
        r"\b(?:send|upload|post|transmit|exfiltrate|email|e-mail|forward|leak|paste|pipe|submit)␣"
        r"(?:(?:the|all|any|every|your|their|its|user's|users'|of|contents|content|current|saved|stored)␣){0,4}"
        r"(?:(?:api|access|secret|private|ssh|aws|github|openai|anthropic|auth|session|login|user)␣)?"
        r"(?:keys|key|tokens?|secrets?|credentials?|passwords?|cookies|env(?:ironment)?␣variables|env␣vars"
        r"|system␣prompt|conversation(?:␣history)?|chat␣history)\b"
        r"(?!␣(?:rotation|notice|policy|reminder|expiry|expiration|format|docs|documentation|guide|request|reset"
        r"|change|update|usage|count|limit|length|names?|field|ids?|header|schema|types?|scopes?|prefix|validation"
        r"|checks?|errors?|page|flow|stats|metrics|summary|report)\b)[^\n]{0,60}?"
        r"\b(?:to|into|at)␣(?:https?://|ftp://|[\w.+-]{1,64}@[\w-]{1,63}\.[\w.]{1,100}|\d{1,3}(?:\.\d{1,3}){3}\b"
        r"|(?:[\w-]{1,63}\.){1,8}(?:com|net|org|io|xyz|ru|cn|info|biz|me|co|app|dev|sh|tk|top|site|online|link|cc)\b"
        r"|(?:my|our|this|an?␣external|an?␣remote|the␣attacker's|the␣following)␣"
        r"(?:server|endpoint|webhook|url|address|host|email|pastebin|gist|discord|telegram|bucket))",
        triggers=(("send", "upload", "post", "transmit", "exfiltrate", "mail", "forward", "leak", "paste",
                   "pipe", "submit"),
                  ("key", "token", "secret", "credential", "password", "cookie", "env", "prompt",
                   "conversation", "history")),
        negation="adjacent",
    ),
    _Rule(
        None,
        r"\b(?:os\.environ|process\.env)\b(?![.\[\w])",
        triggers=(("os.environ", "process.env"),),
        check=_whole_env_check,
    ),
    _Rule(
        None,
        r"!?\[[^\]\n]{0,200}+\]\(\s*(?P<url>https?://[^)\s]{1,600}+)",
        triggers=(("](",),),
        check=_image_check,
    ),

)


def _from_secret(rule: secrets.SecretRule) -> _Rule:
    """A scanner rule for one secret rule: same regex, triggers and checks."""
    def check(match, text):
        return rule.pattern_id if rule.check(match, text) else None

    return _Rule(
        rule.pattern_id if rule.check is None else None, rule.rx.pattern, 0,  # flags: unused, the pattern is given compiled
        triggers=rule.triggers, view="raw", check=None if rule.check is None else check,
        requires=rule.requires, precheck=rule.precheck, compiled=rule.rx,
    )


# secrets (raw text, case-sensitive prefixes): tacit.safety.secrets
_RULE_SPECS += tuple(_from_secret(rule) for rule in secrets.RULES)
RULES = tuple((rule, rule.compiled or lazy(rule.regex.replace("␣", _GAP), rule.flags))
               for rule in _RULE_SPECS)


_NEG_ADJACENT = lazy(
    r"(?:\b(?:never|not|no|cannot|nor)|n't|n\u2019t)[\s*_]+"
    r"(?:(?:ever|again|please|run|use|execute|call|type|do)[\s*_]+)?[`'\"\u201c\u2018(]*$",
    re.IGNORECASE,
)
_CLAUSE_DELIMS = lazy(r"[.!?;:,\n](?=[^.!?;:,\n]*$)")
_NEG_CLAUSE = lazy(
    r"\s*(?:[-*>\u2022]\s*)?(?:(?:please|and|but|so|also|always|then)\s+)?"
    r"(?:never|do\s+not|don't|dont|must\s+not|mustn't|should\s+not|shouldn't|cannot|can't|no\s+one\s+should)\b",
    re.IGNORECASE,
)


def negated(text: str, start: int, mode: str) -> bool:
    window = text[max(0, start - 80):start]
    if mode == "adjacent":
        return _NEG_ADJACENT.search(window) is not None
    cut = _CLAUSE_DELIMS.search(window)
    clause = window[cut.end():] if cut else window
    return _NEG_CLAUSE.match(clause) is not None
