"""Durable-statement markers: phrases that say a preference, decision, goal or fact.

The phrase lists of the earlier rule-based importance scorer, kept as
*features* for the learned durable-statement model
(:mod:`tacit.detect.features`), plus the clause gating and the expiry hints
it used. English and Chinese.

Design notes: docs/design/detect.md#tacitdetectmarkers"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tacit.lazyre import lazy

_I = re.IGNORECASE
_CJK = "\u3400-\u4dbf\u4e00-\u9fff"

# an instruction about a whole class of things ("Write commit messages in the
# imperative", "Comments should explain why") is a standing rule, not a task
_GENERIC_OBJECTS = (
    r"(?:commit\s+messages|commits|comments|docstrings|tests|test\s+names|functions|variable\s+names|names"
    r"|imports|prs|pull\s+requests|answers|responses|replies|error\s+messages|errors|log\s+messages|logs"
    r"|strings|branches|classes|modules|constants|types|migrations|endpoints|apis)"
)
_STYLE_RULE = (
    r"^(?:please\s+)?(?:write|keep|use|put|name|format|indent|structure|sort|order|prefix|end|start|wrap|limit"
    rf"|make|document|type|annotate)\s+(?:all\s+|your\s+|our\s+|new\s+)?{_GENERIC_OBJECTS}\b"
    rf"|^(?:all\s+|new\s+|our\s+)?{_GENERIC_OBJECTS}\s+(?:should|must|need\s+to|have\s+to)\b"
)

_PREFERENCE = [
    lazy(
        r"\b(?:I|we)\s+(?:really\s+|strongly\s+|much\s+|generally\s+|usually\s+|personally\s+|also\s+)?"
        r"(?:prefer|like|love|hate|dislike|detest|enjoy|can'?t\s+stand|don'?t\s+(?:like|want|love|care\s+for)"
        r"|do\s+not\s+(?:like|want))\b",
        _I,
    ),
    lazy(r"\b(?:my|our)\s+(?:favou?rite|preferred|preference)\b", _I),
    lazy(r"\bI(?:'d|\s+would)\s+(?:(?:much\s+)?rather|prefer|like\b(?!\s+(?:you|to\s+(?:see|know|ask|check|understand"
               r"|have|get|ship|finish|launch|release|reach))))", _I),
    lazy(r"\bI'?m\s+(?:not\s+)?(?:a\s+(?:big\s+|huge\s+)?)?fan\s+of\b|\bpersonally\b", _I),
    lazy(
        r"\bI\s+find\s+[^.?!]{1,60}?\b(?:easier|harder|clearer|cleaner|better|worse|more\s+readable|annoying"
        r"|confusing|noisy|distracting|hard\s+to\s+read|easy\s+to\s+read)\b"
        r"|\b(?:that'?s|it'?s)\s+(?:just\s+)?my\s+style\b|\bmy\s+style\s+is\b"
        r"|\bis\s+(?:what|how)\s+I\s+(?:want|like|prefer)\b|\bthat'?s\s+how\s+I\s+like\b",
        _I,
    ),
    lazy(
        r"^(?:please\s+)?keep\s+(?:your\s+|the\s+|all\s+)?(?:answers|responses|replies|explanations|messages"
        r"|commits?|commit\s+messages|functions|prs|pull\s+requests|diffs|comments|summaries)\b"
        r"|\b(?:whenever|every\s+time|each\s+time)\s+you\b|(?:^|[.!,]\s*)(?:always|never)[.!]*$",
        _I,
    ),
    lazy(r"^(?:please\s+)?(?:always|never)\b(?!\s+(?:mind|happy|glad|good|nice|fun|a\s+pleasure))"
               r"|\b(?:always|never)\s+(?:use|write|add|run|commit|push|force-push"
               r"|put|include|print|log|ask|create|delete|modify|touch|want|do|leave|merge|skip|mock)\b", _I),
    lazy(r"\bI\s+(?:always|never)\s+(?:want|use|write)\b|\bdon'?t\s+ever\b|\bnever\s+ever\b", _I),
    lazy(r"\b(?:it'?s|it\s+is)\s+(?:really\s+|very\s+)?important\s+to\s+me\b|\bmatters\s+to\s+me\b"
               r"|\bI\s+(?:really\s+)?care\s+(?:a\s+lot\s+)?about\b", _I),
    lazy(
        r"^(?:please\s+)?(?:don'?t|do\s+not|avoid|stop)\s+(?:use|using|add|adding|write|writing|put|putting"
        r"|commit|committing|include|including|print|printing|ever)\b",
        _I,
    ),
    lazy(
        r"\bI'?m\s+(?:more\s+|much\s+more\s+|a\s+lot\s+more\s+)?comfortable\s+with\b|\bI\s+feel\s+more\s+comfortable\b"
        r"|\bI\s+want\b[^.?!]{0,60}\b(?:rather\s+than|instead\s+of)\b"
        r"|\b(?:that'?s|it'?s)\s+(?:the|my|our|a)\s+(?:rule|house\s+rule)\b|\bhouse\s+rule\b|\brule\s+of\s+thumb\b",
        _I,
    ),
    lazy(_STYLE_RULE, _I),
    lazy(
        r"\b(?:read|reads|is|are|looks?|feels?)\s+(?:much\s+|a\s+lot\s+|way\s+)?(?:better|cleaner|clearer|nicer|worse"
        r"|easier|harder|simpler)\b(?:\s+(?:than|to|for\s+me))?|\b(?:easier|harder)\s+for\s+me\b"
        r"|^prefer\b|^don'?t\s+bother\b|^no\s+(?!problem|worries|way|idea|thanks|need|rush)[\w`-]+[^.?!]*,\s*(?:ever|please|anywhere)\b"
        r"|\bstick\s+(?:to|with)\s+(?:that|this|it)\b|\bI\s+want\b[^.?!]{0,60}\bby\s+default\b",
        _I,
    ),
    lazy(
        r"\bI'?m\s+(?:very\s+|quite\s+|really\s+)?(?:strict|picky|particular)\s+about\b|\bI\s+insist\s+on\b"
        r"|\bnon-negotiable\b|\bis\s+a\s+must\b"
        r"|^(?:for|in)\s+(?!now\b|the\s+meantime\b|example\b|that\s+case\b|this\s+(?:one|file|test|case)\b)"
        r"(?:all\s+|any\s+|new\s+)?[\w`.+#-]+(?:\s+[\w`.+#-]+){0,2},\s+(?!(?:can|could|would)\b)",
        _I,
    ),
    lazy(r"(?:更喜欢|不喜欢|喜欢|偏好|偏爱|偏向|倾向于?|我希望|希望你|讨厌|宁愿|宁可|最爱|习惯用|总是|永远不要|绝不|不要(?!紧)|别用|别再)"),
]
_PREFERENCE_BOOST = lazy(
    r"\b(?:always|never|from\s+now\s+on|going\s+forward|in\s+(?:the\s+)?future|by\s+default|everywhere"
    r"|in\s+this\s+(?:codebase|repo|project)|whenever\s+you|every\s+time\s+you|each\s+time\s+you)\b|以后|总是|永远",
    _I,
)
_APPROVAL_ONLY = lazy(
    r"^\s*(?:I|we)\s+(?:really\s+)?(?:like|love)\s+(?:it|this|that|them|these)\b[\s!.,]*(?:thanks?(?:\s+you)?|thx|ty)?[\s!.]*$"
    r"|^\s*(?:I|we)\s+(?:really\s+)?(?:like|love)\s+(?:where|how|what)\s+(?:this|that|it|you)\b(?![^.]*\b(?:always|never|from\s+now))"
    r"|^\s*(?:I|we)\s+(?:really\s+)?(?:like|love)\s+(?:it|this|that)\b[\s!.,]*(?:(?:thanks?|thx|ship\s+it|go\s+ahead"
    r"|merge\s+it|let'?s\s+go|perfect|great|nice|awesome)\b[\s!.,]*)+$",
    _I,
)

_DECISION = [
    lazy(
        r"\blet'?s\s+(?:use|go\s+with|stick\s+with|switch\s+(?:[\w`./-]+\s+){0,4}?to|move\s+(?:[\w`./-]+\s+){0,4}?to"
        r"|adopt|standardi[sz]e\s+on|settle\s+on"
        r"|pick|choose|migrate\s+to|drop|keep(?!\s+going)|store|deprecate)\b",
        _I,
    ),
    lazy(r"\b(?:I|we)(?:'ve|\s+have)?\s+decided\b|\bdecided\s+(?:to|on|that)\b"
               r"|^(?:the\s+|our\s+|final\s+)?decision\s*(?:is|was|:)", _I),
    lazy(r"\bwe(?:'re|\s+are)\s+going\s+to\s+(?:use|go\s+with|switch|adopt|move|stick|standardi[sz]e)\b"
               r"|\bI(?:'ll|\s+will)\s+go\s+with\b|\blet'?s\s+make\s+[^.]{1,40}?\b(?:the\s+)?(?:default|standard)\b", _I),
    lazy(r"\bfinal\s+(?:call|decision|answer)\b", _I),
    lazy(r"\b(?:I'?m|we'?re|I\s+am|we\s+are)\s+going\s+with\b|^(?:ok(?:ay)?,?\s+)?going\s+with\b", _I),
    lazy(
        r"\bwe(?:'ll|\s+will|\s+shall)\s+(?:use|go\s+with|stick\s+with|switch\s+to|adopt|keep|standardi[sz]e)\b",
        _I,
    ),
    lazy(r"\bwe(?:'re|\s+are)\s+(?:switching|moving)\s+to\b", _I),
    lazy(r"\bwe(?:'ve|\s+have)?\s+(?:chose|chosen|picked|selected|settled\s+on|agreed\s+(?:to|on))\b"
               r"|\b(?:the\s+)?team\s+(?:has\s+)?agreed\b", _I),
    lazy(r"\b(?:from\s+now\s+on|going\s+forward),?\s+(?:we|let'?s)\b", _I),
    lazy(r"^decided\b|\b(?:picked|chose|opted\s+for|went\s+with)\b(?![^.]*\?)", _I),
    lazy(r"\bwe(?:'re|\s+are|'ll|\s+will)\s+(?:dropping|drop|removing|deprecating|sunsetting|retiring)\b", _I),
    lazy(
        r"^(?:(?:ok(?:ay)?|alright|fine|right|so)[,\s]+)?[\w`.-]+(?:\s+[\w`.-]+)?\s+it\s+is[.!]*$"
        r"|\bstandardi[sz](?:e|ing)\s+on\b|\bwe\s+go\s+with\b|\b(?:I|we)(?:'ve|\s+have)\s+(?:chosen|opted)\b"
        r"|\blet'?s\s+not\s+(?!worry|bother|panic|overthink)\w+|^(?:the\s+|my\s+|our\s+)?(?:call|verdict)\s+is\b"
        r"|\blet'?s\s+go\s+ahead\s+with\b|\b(?:we'?ve|we\s+have|I'?ve)\s+settled\b|\bteam\s+vote\b|\bwe\s+voted\b"
        r"|\b(?:I'?m|we'?re)\s+(?:scrapping|ditching|dropping|replacing|retiring)\b|^approved\b|\bit'?s\s+decided\b"
        r"|\bwe(?:'re|\s+are)\s+(?:moving|switching|migrating)\s+[^.?!]{1,30}?\s+to\b(?![^.?!]*\b(?:at\s+the\s+moment|currently|right\s+now))",
        _I,
    ),
    lazy(r"(?:决定|就用|定了|定下来|敲定|改用|采用|确定用|定用|最后决定|选定|就这么定)"),
]

_CORRECTION_ZH = lazy(
    r"^\s*(?:不对|不對|不是|错了|錯了|不正确|不正確|搞错了|弄错了)|我说的是|我說的是|我的意思是|你理解错了|你搞错了|你弄错了"
    r"|我要的是|你别|你別|别再|別再|不要再|别老是|别总是|停止修改|不是让你|不是讓你|我没(?:有)?让你|我沒(?:有)?讓你"
    r"|我没(?:有)?说|你又(?:把|改|删|加|搞|弄)|改回(?:去|来|原)|恢复原(?:样|来)|撤销(?:刚才|这次|你的)"
)

_GOAL = [
    lazy(r"\b(?:I|we|you\s+and\s+I|the\s+team)\s+(?:really\s+|still\s+)?(?:need|have|has|must|gotta)\s+to\b", _I),
    lazy(r"\b(?:has|have|needs?)\s+to\s+(?:be|go|ship|land|work)\b|^must\b|\bmust\s+(?:be|have|ship|land|get)\b", _I),
    lazy(r"\bneed\s+(?:it|this|that|them|the\s+[\w\s-]{1,30}?)\s+(?:done|finished|ready|shipped|fixed|out|live"
               r"|merged|deployed)\b|^goal\b|\bgoal\s+for\b"
               r"|\bin\s+(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a\s+few)\s+(?:days|weeks|months)\b"
               r"|\bbefore\s+(?:summer|winter|spring|fall|autumn|the\s+holidays|year[\s-]end|launch|the\s+launch)\b", _I),
    lazy(r"\bdeadline\b|\bdue\s+(?:on|by|date)\b|\bno\s+slipping\b", _I),
    lazy(
        r"\bby\s+(?:the\s+)?(?:end\s+of|eod|eow|tomorrow|tonight|monday|tuesday|wednesday|thursday|friday"
        r"|saturday|sunday|next\s+\w+|q[1-4]|\d{4}-\d\d-\d\d|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)",
        _I,
    ),
    lazy(r"\b(?:our|the|my)\s+(?:top\s+|main\s+)?(?:goal|aim|target|objective|priority|priorities|milestone|mission)\b"
               r"|\bthe\s+plan\s+is\s+to\b|\bon\s+the\s+hook\s+(?:to|for)\b", _I),
    lazy(r"\baim(?:ing)?\s+(?:to|for)\b|\b(?:I|we)\s+want\s+(?:the\s+[\w\s-]{1,30}?\s+(?:out|done|shipped|live|ready|finished)\b|to\s+(?:ship|launch|release|finish|have|reach"
               r"|get|deliver|migrate|hit|cut|reduce|support|go\s+live))\b", _I),
    lazy(r"\b(?:I|we|the\s+team)\s+must\b|\buntil\s+the\s+end\s+of\b|\b(?:I|we)(?:'ve|\s+have)?\s+got\s+to\b"
               r"|\bgotta\b|\bbefore\s+(?:the\s+)?next\s+\w+", _I),
    lazy(r"\bbefore\s+(?:the\s+)?(?:release|launch|demo|conference|deadline|monday|tuesday|wednesday"
               r"|thursday|friday|saturday|sunday)\b", _I),
    lazy(r"(?:需要(?!你)|必须|截止|目标|务必在|得在|要在[^，。]{0,8}(?:之前|前)|之前(?:要|必须|需要|完成|上线)|前完成|前要|前得)"),
]

_FACT = [
    lazy(
        r"\b(?:our|my|the\s+team'?s|the\s+company'?s)\s+(?:[\w`./-]+\s+){0,3}?"
        r"(?:is|are|was|runs?|uses?|lives?|sits?|has|have|reads?|writes?|deploys?|listens?|goes"
        r"|(?:is|are)\s+(?:hosted|deployed|written|located|shipped))\b",
        _I,
    ),
    lazy(r"\bmy\s+name\s+is\b|\bI'?m\s+(?:a|an)\s+(?!fan\b)[\w-]+|\bI\s+am\s+(?:a|an)\s+(?!fan\b)", _I),
    lazy(r"\bI\s+work\s+(?:at|for|on|in|with)\b|\bI'?m\s+based\s+in\b|\bI\s+live\s+in\b"
               r"|\bI'?m\s+the\s+(?:only|lead|main|sole|senior|primary)\b", _I),
    lazy(r"\b(?:prod|production|staging)\s+(?:\w+\s+){0,2}?(?:is|are|runs?|goes|uses?|sits|lives|has)\b", _I),
    lazy(
        r"\bI'?m\s+(?:on|using|running)\s+(?:macos|mac|osx|linux|windows|ubuntu|debian|fedora|arch|nixos|wsl"
        r"|an?\s+(?:m\d|mac|intel|thinkpad|linux|windows))\b"
        r"|^the\s+[^,.?!]{1,40}?\s+(?:is|are|lives|sits)\s+(?:in|on|under|at|behind)\s+(?:a|an|the|our)\b"
        r"|\b(?:all\s+)?our\s+(?:[\w-]+\s+){0,2}?(?:log|emit|write|send|expose|serve|support|require|need|expect"
        r"|publish|talk|call|depend)s?\b",
        _I,
    ),
    lazy(r"\bwe\s+(?:use|deploy|run|host|have|ship|build|store|keep|are\s+on)\b", _I),
    lazy(
        r"\b(?:the|this|our)\s+(?:\S+\s+){0,2}?(?:database|db|server|cluster|service|api|pipeline|repo|repository|bucket|queue"
        r"|folder|directory|branch|team|app|backend|frontend|monorepo|project|codebase|company)\b[^.?!]{0,40}?"
        r"\b(?:is|are|runs?|uses?|reads?|lives?|has|sits?|gets|takes|goes|handles|serves|stores|contains|costs"
        r"|talks\s+to|connects\s+to|calls|depends\s+on|sends|pulls|pushes|syncs|publishes|queries|proxies)\b",
        _I,
    ),
    lazy(r"\b[A-Z][\w.-]+\s+(?:runs|listens|lives|is\s+hosted|is\s+deployed)\s+(?:on|at|in)\b"),
    lazy(r"(?:我们的|我的|公司的|团队的|生产|测试|线上|开发)[^，。？?]{0,12}(?:是|在|运行在|部署在|用的是|使用)"),
    lazy(r"^我是|(?:数据库|服务器|接口|API|服务|地址|端口)[^，。？?]{0,10}(?:是|运行在|部署在)"
               r"|我们(?:团队|公司|项目|这边)?(?:用的是|使用的是|一直用|部署在|跑在)"),
]
_TRANSIENT = lazy(
    r"\b(?:is|are|was|were)\s+(?:still\s+|now\s+|again\s+)?(?:failing|broken|down|not\s+working|slow|stuck|weird"
    r"|wrong|red|green|flaky|failing\s+again|crashing)\b|\btakes?\s+forever\b|\b(?:so|too)\s+slow\b",
    _I,
)

_CONTEXT = [
    lazy(
        r"\b(?:I'?m|I\s+am)\s+(?:currently\s+|now\s+|still\s+|mostly\s+|also\s+)?(?:working\s+on|trying\s+to|building"
        r"|writing|rewriting|debugging|investigating|exploring|preparing|learning|migrating|pairing|refactoring"
        r"|porting|on\s+call|new\s+to|setting\s+up|looking\s+into|prototyping|studying|focusing\s+on|reviewing"
        r"|testing|planning|designing|drafting|mid-?way\s+through|halfway\s+through|in\s+the\s+middle\s+of)\b",
        _I,
    ),
    lazy(
        r"\bwe(?:'re|\s+are)\s+(?:currently\s+|now\s+|still\s+)?(?:in\s+the\s+middle\s+of|migrating|working\s+on"
        r"|focusing\s+on|building|in\s+a\s+code\s+freeze|rewriting|preparing|moving|refactoring|porting"
        r"|mid-?way\s+through|halfway\s+through|upgrading|rolling\s+out)\b",
        _I,
    ),
    lazy(r"^(?:currently|right\s+now|at\s+the\s+moment|today|this\s+week|lately|recently)\b[^?]*\b\w+ing\b", _I),
    lazy(r"\bjust\s+joined\b|\bcode\s+freeze\b|^(?:I\s+)?(?:just\s+)?started\s+(?:on|working)\b"
               r"|\bI(?:'ve|\s+have)\s+been\s+(?!told\b)\w+ing\b"
               r"|\bI(?:'ve|\s+have)\s+(?:just\s+)?started\s+(?:on|working)\b", _I),
    lazy(r"\b(?:I'?m|we'?re|I\s+am|we\s+are)\s+(?:knee-deep|deep|busy|swamped|buried|stuck)\s+(?:in|with)\b"
               r"|\b(?:I'?m|we'?re|I\s+am|we\s+are)\s+about\s+to\b|^been\s+\w+ing\b", _I),
    lazy(r"\bin\s+the\s+process\s+of\b|^still\s+\w+ing\b|^(?:this|today|currently)\b[^.]*\bI'?m\s+(?:on|in|with)\b", _I),
    lazy(r"(?:(?:这周|本周|最近|这几天|今天|目前|现在)在|正在|目前|最近在|这周我在|本周我在|我(?:这几天|这两天|最近|这周|今天|现在)?在(?:做|准备|学|写|排查|重构|开发|研究|搞|调试|迁移))"),
]

_EMPHASIS = lazy(
    r"\b(?:important(?:ly)?|critical|crucial|essential|vital|must\s+remember|remember|keep\s+in\s+mind"
    r"|never\s+forget|don'?t\s+forget|note\s+that|make\s+sure|please\s+note|urgent|top\s+priority)\b"
    r"|!!+|重要|记住|务必|一定要|千万|关键|切记|牢记",
    _I,
)
_REMEMBER_FACT = lazy(
    r"^(?:please\s+)?(?:remember|keep\s+in\s+mind|note)\b[:,]?\s|\bremember\s+that\b|^记住", _I
)

_TASK = lazy(
    r"^(?:please\s+|pls\s+|now\s+|ok(?:ay)?,?\s+|and\s+|also\s+|then\s+|just\s+)*"
    r"(?:fix|run|add|make|show|check|update|write|create|delete|remove|refactor|rename|explain|try|implement"
    r"|review|build|deploy|test|continue|retry|revert|undo|open|close|print|list|move|change|use|install|look"
    r"|find|search|debug|investigate|summari[sz]e|describe|tell|give|generate|convert|format|lint|clean|commit"
    r"|push|merge|rebase|start|restart|kill|set|get|read|edit|replace|split|combine|document|help|remind"
    r"|do|go|proceed|ship|leave|hold|wait|carry\s+on|please"
    r"|can\s+you|could\s+you|would\s+you|will\s+you|let\s+me|let'?s\s+(?:see|do|take|run|try|look|check|go|fix|start"
    r"|think|continue|debug|test)|go\s+ahead)\b"
    r"|\bI(?:\s+need|\s+want|'d\s+like|\s+would\s+like)\s+you\s+to\b|\bI'?d\s+like\s+to\s+(?:see|know|check|understand|look)\b"
    r"|^(?:帮我|请帮|修一下|再跑|运行一下|看一下|继续)|我需要你|你能|能不能",
    _I,
)
_QUESTION = lazy(
    r"[?？]\s*$|^(?:what|why|how|when|where|which|who|is|are|do|does|did|can|could|should|would|will)\b"
    r"|(?:吗|呢|什么)[?？]?$",
    _I,
)
_TRIVIAL = lazy(
    r"^(?:ok(?:ay)?|k|yes|yep|yeah|no|sure|thanks?(?:\s+you)?|thx|ty|cool|nice|great|perfect|done|continue|go|lgtm"
    r"|looks\s+good(?:\s+to\s+me)?|hmm+|interesting|好的?|谢谢|继续|可以|行|嗯|对)[\s!.,]*$",
    _I,
)

# deadline / expiry hints

_MONTHS = {
    "jan": "january", "feb": "february", "mar": "march", "apr": "april", "may": "may", "jun": "june",
    "jul": "july", "aug": "august", "sep": "september", "oct": "october", "nov": "november", "dec": "december",
}
_ZH_WEEKDAY = {"一": "monday", "二": "tuesday", "三": "wednesday", "四": "thursday", "五": "friday",
               "六": "saturday", "日": "sunday", "天": "sunday"}
_NUMBER_WORDS = {"a": "one", "an": "one"}

_HINT_PATTERNS: list[tuple[re.Pattern, object]] = [
    (lazy(r"\bend\s+of\s+(?:the\s+|this\s+)?(day|week|month|quarter|year|sprint)\b", _I), lambda m: f"end of {m.group(1).lower()}"),
    (lazy(r"\b(next\s+)?(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b", _I),
     lambda m: ("next " if m.group(1) else "") + m.group(2).lower()),
    (lazy(r"\b(eod|eow|tomorrow|tonight|today)\b", _I), lambda m: m.group(1).lower()),
    (lazy(r"\b(q[1-4])\b", _I), lambda m: m.group(1).lower()),
    (lazy(r"\b(\d{4}-\d{2}-\d{2})\b"), lambda m: m.group(1)),
    (lazy(r"\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b", _I),
     lambda m: f"{_MONTHS[m.group(1).lower()]} {int(m.group(2))}"),
    (lazy(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+of\s+(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b", _I),
     lambda m: f"{_MONTHS[m.group(2).lower()]} {int(m.group(1))}"),
    (lazy(r"\bin\s+(a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d+|a\s+few)\s+(days?|weeks?|months?)\b", _I),
     lambda m: f"in {_NUMBER_WORDS.get(m.group(1).lower(), m.group(1).lower())} {m.group(2).lower()}"),
    (lazy(r"\b(this|next)\s+(week|sprint|month|quarter|year)\b", _I), lambda m: f"{m.group(1).lower()} {m.group(2).lower()}"),
    (lazy(r"(下)?(?:周|星期|礼拜)([一二三四五六日天])"), lambda m: ("next " if m.group(1) else "") + _ZH_WEEKDAY[m.group(2)]),
    (lazy(r"明天|明早"), lambda m: "tomorrow"),
    (lazy(r"今天|今晚"), lambda m: "today"),
    (lazy(r"月底|月末"), lambda m: "end of month"),
    (lazy(r"年底|年末"), lambda m: "end of year"),
    (lazy(r"(?:这|本)周(?![一二三四五六日天])"), lambda m: "this week"),
    (lazy(r"下周(?![一二三四五六日天])"), lambda m: "next week"),
    (lazy(r"下个?月"), lambda m: "next month"),
    (lazy(r"(?:这个|本)月(?![底末])"), lambda m: "this month"),
]
# context ("I'm on call this week") expires with the present period only
_PRESENT_SCOPE = {"today", "tonight", "this week", "this sprint", "this month", "eod", "eow"}
_DEADLINE_CONTEXT = lazy(r"\b(?:last|past|previous|every|each)\s+$", _I)


def expiry_hint(text: str, category: str) -> str | None:
    """"friday", "end of month", … for a goal or current context, else None."""
    if category not in ("goal", "context"):
        return None
    found = sorted((match.start(), render(match)) for pattern, render in _HINT_PATTERNS  # type: ignore[operator]
                   for match in pattern.finditer(text)
                   # "last week", "every Friday" are not deadlines
                   if not _DEADLINE_CONTEXT.search(text[max(0, match.start() - 12): match.start()]))
    hints = [hint for _, hint in found if category == "goal" or hint in _PRESENT_SCOPE]
    return hints[0] if hints else None


_HAS_CJK = lazy(f"[{_CJK}]")


def _markers(patterns: list[re.Pattern], text: str) -> list[str]:
    found = (" ".join(match.group(0).lower().split()) for pattern in patterns for match in pattern.finditer(text))
    return [marker for marker in dict.fromkeys(found) if marker]


# sentences and dash-separated clauses are gated one by one, so "Could you
# stop using print? I prefer the logging module." keeps its preference
_CLAUSE_SPLIT = lazy(r"(?<=[.!?。！？])\s+|(?<=[。！？])|\s+[—–]\s+|;\s+")
_INTERJECTION = lazy(
    r"^(?:great|nice|cool|ok(?:ay)?|awesome|perfect|thanks|hmm+|ugh|oh|ah|wow|yes|yeah|yep|sure|alright|right"
    r"|well|nah|so|hey)[,!.]?\s+",
    _I,
)
# remarks about the thing on screen ("that makes sense", "this build is so
# slow", "it works now") are about this moment, not something to keep
_DEICTIC = lazy(r"^(?:that|this|it|these|those|here|there)\b|^(?:这|那|它)", _I)
_CHITCHAT = lazy(
    r"\b(?:lunch|coffee|brb|afk|back\s+in|take\s+your\s+time|sounds\s+good|makes\s+sense|good\s+job|great\s+job"
    r"|well\s+done|never\s+mind|no\s+worries|my\s+bad|got\s+it|fair\s+enough|hold\s+on|one\s+sec|haha|lol"
    r"|thank(?:s|\s+you)|good\s+(?:morning|night|evening)|see\s+you|bye|hurry|asap|didn'?t\s+know|good\s+to\s+know"
    r"|til|nice\s+catch|good\s+catch)\b"
    r"|谢谢|辛苦|没事|稍等|等一下|不错|可以了|没问题|收到|完美|厉害|^(?:好|行|嗯|对|可以)[，,！!。]?|吧[。！!]?$",
    _I,
)
_HYPOTHETICAL = lazy(r"\b(?:would|could|might|maybe|probably|perhaps|looks\s+like|seems|guess)\b|也许|可能", _I)
_PROGRESSIVE = lazy(
    r"^(?:still\s+|currently\s+|now\s+)?\w+ing\b|\b(?:I'?m|we'?re|I\s+am|we\s+are)\s+(?:\w+\s+)?\w+ing\b|在(?:做|写|搞|改|查|修|弄|调|赶|学)",
    _I,
)
_CONTENT_WORD = lazy(rf"[A-Za-z][\w'-]{{2,}}|[{_CJK}]")


def _clauses(text: str) -> list[tuple[str, str]]:
    """(kind, clause) for each clause: chat | question | task | statement."""
    return [("chat" if _TRIVIAL.match(clause) else "question" if _QUESTION.search(clause)
             else "task" if _TASK.search(clause) else "statement", clause)
            for clause in (c.strip() for c in _CLAUSE_SPLIT.split(text)) if clause]


def _default_category(statements: list[str]) -> tuple[str, str] | None:
    """(fact | context, the statement) for a declarative message with no marker, or None if trivial."""
    for statement in statements:
        core = _INTERJECTION.sub("", statement)
        if (
            _CHITCHAT.search(core) or _DEICTIC.match(core) or _HYPOTHETICAL.search(core)
            or _TRANSIENT.search(core) or len(_CONTENT_WORD.findall(core)) < 3
        ):
            continue
        return ("context" if _PROGRESSIVE.search(core) else "fact"), core
    return None


def chinese_correction(text: str) -> str | None:
    """A Chinese correction phrase (不对, 错了, 我说的是 …), or None: the
    learned models are trained on English only."""
    match = _HAS_CJK.search(text) and _CORRECTION_ZH.search(text)
    return match.group(0) if match else None


@dataclass(frozen=True, slots=True)
class DurableMarkers:
    """What the phrase lists found in one message."""

    found: dict  # category -> tuple of markers, for decision/preference/goal/fact/context
    boosts: tuple[str, ...]  # standing-rule words: always, never, from now on …
    emphasis: tuple[str, ...]  # important, remember, !! …
    kinds: tuple[str, ...]  # clause kinds in order: chat | question | task | statement
    approval_only: bool  # "I like it, thanks!"
    remember: bool  # "remember that …"
    transient: bool  # "the build is still failing"
    default_category: str | None  # an unmarked statement's weak category (fact/context)
    rule_category: str  # the earlier rule's verdict: decision/preference/goal/fact/context/none


_EMPTY = DurableMarkers({}, (), (), (), False, False, False, None, "none")


def durable_markers(text: str) -> DurableMarkers:
    """Run the phrase lists over ``text`` (quote-stripped, any case)."""
    text = " ".join(text[:4000].split())
    if not text or _TRIVIAL.match(text):
        return _EMPTY
    kinds_clauses = _clauses(text)
    kept = [c for kind, c in kinds_clauses if kind in ("statement", "task")]
    statements = [c for kind, c in kinds_clauses if kind == "statement"]
    tasks = [c for kind, c in kinds_clauses if kind == "task"]
    said = " ".join(statements)
    transient = bool(_TRANSIENT.search(said))
    found = {
        "decision": _markers(_DECISION, said),
        "preference": _markers(_PREFERENCE, said),
        "goal": _markers(_GOAL, said),
        "fact": [] if transient else _markers(_FACT, said),
        "context": _markers(_CONTEXT, said),
    }
    boosts = _markers([_PREFERENCE_BOOST], " ".join(kept))
    for task in tasks:  # a request carries only standing rules and decisions
        for category, patterns in (("decision", _DECISION), ("preference", _PREFERENCE)):
            for marker in _markers(patterns, task):
                if marker not in found[category]:
                    found[category].append(marker)
    if tasks and boosts and not any(found.values()):
        found["preference"] = list(boosts)  # "Also, from now on please run ruff"
    approval_only = bool(_APPROVAL_ONLY.match(text))
    remember = bool(_REMEMBER_FACT.search(text))
    default = _default_category(statements)
    rule_category = "none"
    if kept and not approval_only:  # ``found`` is in priority order
        rule_category = next((category for category, markers in found.items() if markers),
                             "fact" if remember else "none")
    return DurableMarkers(
        found={k: tuple(v) for k, v in found.items()},
        boosts=tuple(boosts),
        emphasis=tuple(_markers([_EMPHASIS], " ".join(kept))),
        kinds=tuple(kind for kind, _c in kinds_clauses),
        approval_only=approval_only,
        remember=remember,
        transient=transient,
        default_category=default[0] if default else None,
        rule_category=rule_category,
    )
