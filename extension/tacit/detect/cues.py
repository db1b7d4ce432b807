"""Correction cues: the phrases real people use to push back on an agent.

Hand-built from real users' messages (lowercase, no apostrophes, typos, terse). They are *features*
now, not the decision: :mod:`tacit.detect.features` turns them into named inputs of the learned
scorer, beside word n-grams and the agent's previous reply.

Design notes: docs/design/detect.md#tacitdetectcues"""

from __future__ import annotations

from dataclasses import dataclass, field

from tacit.lazyre import lazy
from tacit.detect.text import clauses, content_tokens, normalise, sentences, strip_quoted

_LEAD = (r"(?:(?:but|and|no|nope|nah|so|hey|hmm+|um+|uh+|ugh|ok|okay|oh|oops|wait|dude|man|yo|well|also|just|"
         r"please|again|like|see|remember|btw|fyi|reminder|note that|lets|let us|can you|could you|"
         r"you need to|you should|i want you to|i need you to|now)\s+)*")
_PAST = (r"(?:keep|kept|always|broke|forgot|missed|misunderstood|misread|ignored|reverted|removed|deleted|"
         r"changed|put|used|added|made|renamed|moved|touched|edited|overwrote|dropped|left|skipped|installed|"
         r"created|wrote|rewrote|replaced|converted|switched|introduced|didnt|did not|never|went|mixed|"
         r"messed|undid|lost|duplicated|hardcoded|committed|pushed|ran|picked|chose|swapped|"
         r"(?!suggested|mentioned|recommended|proposed|asked|offered|wanted|needed|explained|described|showed|"
         r"noticed|seemed|helped|figured|nailed|solved|fixed it)\w+ed|"
         r"(?:re|are) (?:still |again |now |just )?(?!doing (?:great|well|good)|getting (?:close|there)|"
         r"making progress|welcome)\w+ing\b)")
_CUES: list[tuple[str, float, bool, str, bool]] = [
    ("i-said", 0.8, True,
     _LEAD + r"(?:as |like )?i (?:(?:already|just|literally|clearly|specifically|explicitly|did|even|also|"
     r"only|never|basically|definitely) ){0,3}"
     r"(?:said|told you|asked (?:you |for )|asked you not|mentioned|wanted (?!to (?:ask|know|check|see|say|"
     r"let|confirm|make sure|try))|meant (?!to (?:ask|say))|was asking for|never (?:said|asked|told|wanted)|"
     r"didnt (?:ask|say|want|tell|mean)|did not (?:ask|say|want|tell|mean)|specifically said)\b", True),
    ("as-i-said", 0.8, True, r"\b(?:as|like) (?:i|we) (?:said|told you|mentioned|discussed)\b", False),
    ("i-dont-want", 0.6, False, _LEAD + r"i (?:dont|do not) want (?!to\b)", True),
    ("not-what-asked", 0.85, True,
     r"\b(?:thats|that is|this is|that was|this was|its|it is|thats just)\s+not\s+(?:quite\s+|really\s+|even\s+)?"
     r"(?:exactly\s+)?(?:what|how|right|correct|the (?:right|correct|layout|one|way|design|behavio|format|thing|"
     r"file|page|component|command|version|branch|repo|color|colour|api|approach|style|order)\w*|it|my|our|at all)\b"
     r"|\b(?:this|that|it) (?:isnt|wasnt|is not|was not) (?:exactly |quite |really |even )?(?:what|how|right|"
     r"correct|the right|the correct)\b"
     r"|\bnot (?:exactly |quite |really )?what i (?:asked|wanted|meant|said|had in mind|need)", False),
    ("thats-wrong", 0.75, True,
     r"\b(?:thats|that is|this is|thats all|its all|that was|you are|youre|ur)\s+(?:completely\s+|totally\s+|all\s+)?"
     r"(?:wrong|incorrect|mistaken|backwards|overkill|the old \w+|too (?:much|complicated|complex|verbose|long))\b",
     False),
    ("why-you", 0.75, True,
     _LEAD + r"(?:why|whyd|how come)(?: (?:on earth|the hell|tf))? (?:did|would|are|do|were|have|didnt|dont|"
     r"arent|havent|is it that|d)? ?(?:you|u)\b(?! (?:so|choose|chose|pick|picked|decide|decided|think|recommend|"
     r"suggest|prefer|go with|say that|mention|ask|like|want|need|use a)\b)", True),
    ("why-is-this", 0.3, False, r"(?:why|whyd) (?:is|are) (?:there|this|that|these|those|it) ", True),
    ("stop-doing", 0.8, True,
     _LEAD + r"(?:can you |could you |will you |would you )?(?:stop|quit)\s+(?!\w*thing\b)\w+ing\b", True),
    ("stop-interjection", 0.35, False, r"(?:stop|wait|hold on|hang on|whoa)$", True),
    ("dont-imperative", 0.7, True,
     _LEAD + r"(?:dont|do not|never|dont ever|do not ever)\s+(?!forget|hesitate|worry|mind|be sorry|apologi|"
     r"get me wrong|know|think|see|understand|have|want\b|need\b|like|care|remember|bother)\w+", True),
    ("always-never", 0.55, False, _LEAD + r"(?:always|never)\s+(?!mind\b)\w+", True),
    ("from-now-on", 0.45, False,
     r"\b(?:from now on|in (?:the )?future|next time|going forward|moving forward|whenever you|every time you|"
     r"remember (?:that |we |to )|for future reference)\b", False),
    ("you-did", 0.55, False, _LEAD + r"(?:you|u)(?:ve| have| just| again| still| also| already| even| only)? ?"
     + _PAST
     + r"\b", True),
    ("you-misunderstood", 0.8, True,
     r"\byou (?:misunderstood|misread|misunderstand|got it wrong|got that wrong|ignored (?:what|my))|"
     r"\b(?:you|u)(?:re| are) (?:overcomplicating|overthinking|overengineering|doing it wrong)", False),
    ("we-convention", 0.55, False,
     _LEAD + r"(?:here |in this (?:repo|project|codebase|team) )?(?:we|were)(?: are| re)? (?:only )?"
     r"(?:use(?! (?:this|that|it|these|those)\b)|dont use|do not use|dont do|dont|never|always|prefer|follow|"
     r"work on|deploy|moved|switched|"
     r"are on|re on|on|re using|are using|squash|name|keep|stick|write|run|test|put)\b"
     r"|(?:this|the|our) (?:project|repo|codebase|team|app) (?:uses|use|follows|is on|runs on|doesnt use)\b",
     True),
    ("we-have", 0.35, False, _LEAD + r"we (?:already )?(?:have|got) ", True),
    ("for-that", 0.3, False, r"\b(?:for that|for this|use that|use those|use it|use them|instead)\s*$", True),
    ("revert", 0.55, False,
     _LEAD + r"(?:undo|revert|roll ?back|restore|go back to|put (?:it|them|that|those|this) back|"
     r"bring (?:it|them|that|this) back|change (?:it|that|this) back|rename (?:it|that|this) back)\b", True),
    ("put-back", 0.55, False,
     r"\b(?:put|bring|change|rename|move|set|turn|switch|split|roll|give|merge|make) (?:(?:it|them|that|this|"
     r"those|these)|(?:the |my |our )(?:[\w./-]+ ){0,4}?)back\b", False),
    ("too-clever", 0.5, False,
     r"\btoo (?:clever|fancy|magic\w*|complex|complicated|abstract|hacky|verbose|smart)\b", False),
    ("unneeded", 0.5, False,
     r"\b(?:you can skip|you can drop|you dont need (?:to|the|a|an|any|this|that|it|those|these)|you dont have to|"
     r"you do not need to|no need (?:to|for)|"
     r"theres no need|dont bother|not necessary|isnt necessary|unnecessary|is overkill|overkill|"
     r"overcomplicat\w*|overengineer\w*|way too (?:much|many|long|complex)|too verbose)\b", False),
    ("keep-simple", 0.3, False, r"\bkeep it simple\b", False),
    ("leave-alone", 0.55, False,
     r"\bleave (?:\S+ ){1,4}(?:alone|as is|as it (?:is|was)|untouched|out of (?:it|this))\b", False),
    ("keep-old", 0.4, False,
     _LEAD + r"(?:keep|leave|stick with|stay with|stay on|go back to) (?:the |my |our )?(?:old|original|existing|"
     r"previous|current|first)\b", True),
    ("as-everywhere", 0.45, False,
     r"\b(?:like|as) (?:everywhere else|the rest of (?:the|this) \w+|we (?:always )?do (?:it )?(?:here|elsewhere|"
     r"everywhere)|before|usual|always|in the other \w+|the other \w+ do)\b", False),
    ("the-other-one", 0.45, False,
     r"(?:\b(?:its|it is|i meant|i mean|thats|that is|no|nope) |^)the other (?:one|\w+)\b", False),
    ("prefer", 0.45, False, _LEAD + r"(?:i |we )?(?:prefer|would prefer|would rather|d rather|d prefer)\b", True),
    ("no-i-want", 0.5, False, r"^(?:no+|nope|nah|hmm+ no|no no)[,.!]?\s+i (?:want|need|mean|meant|prefer)\b", False),
    ("no-thing", 0.35, False,
     r"(?:please |pls )?(?:no|nope) (?:more )?(?!idea|luck|change|errors?\b|output|response|difference|"
     r"way\b|clue|worries|problem|thanks|need|rush|pressure|hurry|biggie|matter|one\b|results?\b|data\b|effect|success|"
     r"it\b|that\b|this\b|i\b|we\b|you\b|the\b|not\b|wait|sorry)[a-z_][\w./-]*(?: [\w./-]+){0,6}$", True),
    ("can-you-not", 0.6, True,
     _LEAD + r"(?:can|could|would|will) (?:you|u) (?:please )?(?:not|stop|quit)\b", True),
    ("we-went-over", 0.7, True,
     r"\bwe(?:ve| have)? (?:already )?(?:went|gone|been) (?:over|through) (?:this|that|it)\b|"
     r"\bwe (?:already )?(?:discussed|talked about|covered) (?:this|that|it)\b|\bhow many times\b", False),
    ("who-told-you", 0.75, True, r"\bwho (?:told|asked) (?:you|u) to\b", False),
    ("not-asking", 0.75, True,
     _LEAD + r"(?:i )?(?:wasnt|was not|didnt|did not|never|am not|im not) (?:ask|asking|asked) (?:for|you)\b", True),
    ("you-supposed", 0.7, True, r"\b(?:you|u)(?:re| are| were) (?:not )?supposed to\b", False),
    ("should-have-been", 0.5, False, r"\b(?:should|could)(?:ve| have| of) been\b", False),
    ("was-enough", 0.4, False,
     r"\b(?:was|is|would be|would have been|wouldve been) (?:enough|plenty|sufficient)\b", False),
    ("already-exists", 0.35, False,
     r"\balready (?:does|exists|exist|handles|handle|has|have|provides|covers|do)\b", False),
    ("too-much-code", 0.45, False,
     r"\b(?:a lot of|so much|too much|way too much|lots of) (?:code|boilerplate|work|complexity|files|"
     r"abstraction) for\b", False),
    ("wont-work", 0.45, False,
     r"\b(?:that|this|it)(?:s| is)? not (?:gonna|going to) work\b|\b(?:that|this) (?:wont|will not|cant|"
     r"doesnt|does not) work (?:with|for|because|since|in)\b", False),
    ("cant-do", 0.45, False,
     _LEAD + r"(?:we|you|u) (?:cant|cannot|can not|shouldnt|should not|mustnt|must not) \w+", True),
    ("bad-idea", 0.5, False,
     r"\b(?:bad|terrible|horrible|not a good|dangerous) idea\b", False),
    ("spec-says", 0.45, False,
     r"\bthe (?:spec|ticket|issue|docs?|readme|design|requirements?|mockup|figma|story|brief) (?:says|said|"
     r"clearly says|asks for|is clear)\b", False),
    ("thats-the-x", 0.3, False,
     _LEAD + r"(?:thats|its|this is|that is) the (?!one\b|spirit|idea|plan|way|error|issue|problem|bug|same)"
     r"(?:[\w./-]+ ){0,2}[\w./-]+$", True),
    ("no-such", 0.4, False,
     r"\b(?:there is|theres|there are) no (?:such )?\w+|\b(?:doesnt|does not|dont|do not) (?:even )?exist\b", False),
    ("dismissive-opener", 0.3, False, r"^(?:nah|nope|nooo+|no no|nono|ugh|meh|bro|dude)\b", False),
    ("you-caused", 0.6, True,
     r"\b(?:because|since|after|when|cause) (?:you|u) (?:\w+ed|broke|ran|put|made|wrote|took)\b|"
     r"\b(?:you|u) (?:broke|ignored|messed up|destroyed|wiped|overwrote|clobbered)\b", False),
    ("you-should-have", 0.7, True,
     r"\b(?:you|u) (?:should(?:nt| not)? (?:have|of)|shouldve|couldve|could have just|were supposed to|"
     r"werent supposed to|were not supposed to|never should have)\b", False),
    ("we-agreed", 0.5, False,
     r"(?:^" + _LEAD + r"|\b(?:sure|thought|think|remember|recall|know|believe) )we (?:already |just |literally )?"
     r"(?:agreed|decided|settled on|said)\b", False),
    ("no-more", 0.5, False, r"(?:please |pls )?no more (?!errors?\b|warnings?\b|crash\w*|issues?\b)\w+", True),
    ("cant-do-that", 0.6, True,
     r"\b(?:we|you|u) (?:cant|cannot|can not|shouldnt|should not|must not|mustnt) \w+ (?:that|this|it|those|"
     r"these)\b", False),
    ("we-already-have", 0.35, False, r"\bwe already (?:have|got)\b", False),
    ("outdated", 0.45, False,
     r"\b(?:is|are|its|thats|was) (?:deprecated|outdated|obsolete|legacy|dead code|the old (?:one|version|api|"
     r"way|\w+))\b", False),
    ("isnt-the", 0.5, False,
     r"\b(?:this|that|it|these|those|they)\s+(?:isnt|arent|wasnt|werent|is not|are not)\s+(?:the|our|my|what|how|"
     r"right|correct)\b", False),
    ("was-fine", 0.5, False,
     r"\b(?:was|were) (?:fine|ok|okay|good|better|perfect|great)(?: before| as it was| the way it was)?\b"
     r"|\b(?:like|as|the way) it was\b", False),
    ("only-asked", 0.45, False,
     r"\bi only (?:asked|wanted|said|needed|meant)\b|\bonly (?:the )?\w+(?: \w+)? (?:needed|was supposed|"
     r"should have)\b", False),
    ("that-not-this", 0.5, False,
     r"\b(?:thats|its|this is|that is) (?!exactly|just|what|how|all|it\b|why|where|precisely|totally)"
     r"(?:the |a |an )?[\w./-]+(?: [\w./-]+)?,? (?:i|we) (?:need|want|meant|"
     r"asked for|wanted|use)\b", False),
    ("wrong-target", 0.6, False,
     _LEAD + r"(?:(?:thats|its|this is|that is|youre (?:in|on|editing|looking at|using)|you (?:edited|changed|"
     r"used|opened|picked|ran|fixed|touched|updated|modified) )\s*)?(?:the |a |an )?wrong (?!password|credential"
     r"|results?\b|outputs?\b|values?\b|totals?\b|numbers?\b|data\b|answers?\b|response|status|error|format|"
     r"type\b|dates?\b|times?\b|timezone)\w+", True),
    ("the-wrong", 0.4, False, r"\bthe wrong (?!password|credential|results?\b|outputs?\b|values?\b|totals?\b|"
     r"numbers?\b|data\b|answers?\b|response|status|error|dates?\b|times?\b|timezone)\w+", False),
    ("bare-wrong", 0.5, False, r"(?:wrong|incorrect|not quite|nope not quite|not right)$", True),
    ("rejection-opener", 0.3, False,
     r"(?:no+|nope|nah|no no|no no no|hmm+ no|oops no|uh no|no wait|wait no|ugh|nooo+)$", True),
    ("other-way", 0.6, False, r"\b(?:the )?other way (?:a)?round\b|\bthe opposite\b", False),
    ("supposed-to", 0.45, False,
     r"\b(?:is|are|its|was|were|thats|theyre|it was) supposed to\b|\bsupposed to (?:be|use|go|have|run|close|"
     r"show|return|stay)\b", False),
    ("should-be", 0.3, False,
     r"\b(?:should|must|needs to|has to|have to|need to)\s+(?:only\s+)?(?:be|go|live|stay|use|return|"
     r"include|have|close|run|say|show|come|sit|point)\b", False),
    ("norm-goes", 0.3, False,
     r"^(?:the |all |our )?\w+(?: \w+)? (?:go|goes|belong|belongs|live|lives) (?:in|into|under|next to|on)\b", True),
    ("not-opener", 0.5, False,
     r"(?:(?:no+|nope|nah|wait|oh|oops|uh+|hmm+|ugh|no no)\s+)*not (?!sure|yet|now|really|bad|much|a big|"
     r"exactly sure|working|loading|showing|urgent|important|"
     r"a problem|an issue|today|at the moment|that i know|anymore|related|\w+ing\b|\w+ed\b)(?:in |on |the |this |"
     r"that |my |a |an )?\w+", True),    # complaints about the result, added for real phrasing (issue 16)
    ("too-adjective", 0.4, False,
     r"\b(?:is|are|its|looks?|seems?|way|much|a bit|bit|still|now|far|thats|this is) too (?:big|small|large|wide|"
     r"narrow|tall|short|long|dark|light|bright|slow|fast|much|many|little|few|high|low|thin|thick|close|far|"
     r"complicated|complex|verbose|generic|aggressive|strict|loose|soft|subtle|bold|busy|cluttered|narrow)\b", False),
    ("dislike", 0.5, False,
     r"\bi (?:dont|do not|didnt|really dont|still dont) (?:like|love)\b|\bnot a (?:big )?fan\b|"
     r"\bi hate (?:it|this|that|how|when)\b", False),
    ("makes-no-sense", 0.5, False,
     r"\b(?:makes no sense|doesnt make (?:any )?sense|does not make (?:any )?sense|not make sense)\b", False),
    ("you-didnt", 0.5, False,
     r"\b(?:you|u) (?:still |also |just |again )?(?:didnt|did not|havent|have not|forgot|missed|failed to|ignored|"
     r"removed|deleted|got rid of|broke|changed|made|added|put|used|keep|kept)\b", False),
    ("didnt-follow", 0.8, True,
     r"\b(?:didnt|did not|dont|do not|arent|are not|not|never) (?:follow|listen|listening|read|reading|follow(?:ing)?)"
     r" (?:to )?(?:my|the|what|me|instructions)\b", False),
    ("try-again", 0.3, False,
     r"\b(?:try again|think (?:again|harder|more|some more)|start over|do it again|redo (?:it|this|that))\b", False),
    ("not-right", 0.45, False,
     r"\b(?:not|isnt|doesnt look|dont look|doesnt seem|does not look) (?:right|correct|good|ok|okay|great|"
     r"like what)\b|\blooks? (?:wrong|off|weird|bad|terrible|awful|broken|worse|ugly)\b", False),
    ("scrap-that", 0.4, False,
     r"(?:scrap|remove|delete|drop|get rid of|undo|revert|discard|throw away) (?:that|this|it|those|these|them|all of "
     r"(?:that|this|it)|everything|the (?:last|previous) (?:change|commit|edit)s?)\b", True),
    ("should-not", 0.35, False,
     r"\b(?:shouldnt|should not|must not|mustnt|wasnt supposed to|is not supposed to|isnt supposed to) (?:be|have|"
     r"use|show|do|go|create|add|change|touch|modify|need|include)\b", False),
    ("why-would", 0.45, False,
     r"\bwhy (?:would|are|did|is|do|does) (?:you|u|we|it|this|that|there)\b[^?]{0,80}\?", False),
]

_NOT_STATE = (r"(?:sure|yet|now|working|loading|showing|found|defined|bad|only|just|really|much|needed|"
              r"necessary|available|supported|a big deal|allowed|responding|rendering|updating|saving|"
              r"displaying|visible|clickable|even|always|everything|all|too|that bad|so|at all|\w+ing\b|"
              r"\w+ed\b)")
_COPULA_CONTRAST = lazy(
    r"\b(?:is|are|its|was|were|should be|must be|needs to be|has to be|called|named|goes|go|belongs|lives|"
    r"live|stays|stay|runs on|means|meant)\s+(?!(?:definitely|really|just|probably|simply|certainly|actually|"
    r"still|also|clearly|obviously|surely)\s+not\b)(?P<a>[^,.;!?]{1,50}?)\s*,?\s+(?:and\s+)?"
    r"not\s+(?!" + _NOT_STATE + r")(?P<b>[^,.;!?]{1,50})")
# The generic forms are searched from their anchor ("not", "instead") and the A part is sliced out
# afterwards: a lazy "A" group tried at every word boundary was the slowest thing in the detector.
_GENERIC_CONTRAST = lazy(
    r"(?:,[ \t]*|[ \t]+(?:and|but)[ \t]+)(?:and |but )?not[ \t]+(?!" + _NOT_STATE + r")(?P<b>[^,.;!?\n]{1,50})")
_NOT_B_ITS_A = lazy(
    r"\b(?:its|it is|thats|that is|this is|they are|theyre|were|we are)\s+not\s+(?!" + _NOT_STATE
    + r")(?P<b>[^,.;!?]{1,40})[,;.]\s*(?:its|it is|thats|that is|this is|they are|theyre|were|we are|but|its a|"
    r"it uses)\s+(?P<a>[^,.;!?]{1,40})")
_INSTEAD = lazy(r"\binstead(?: of (?P<b>[^,.;!?\n]{1,50}))?\b")
_PART_BREAK = lazy(r"[,.;!?\n]")

# Signals that dampen moderate cues.
_BUG = lazy(
    r"\b(?:still|error(?! handling| message| toast| page| boundar| state| code| type| format)|errors|"
    r"exception|traceback|crash\w*|(?<!to )(?<!should )(?<!must )fail\w*|broken|breaks|doesnt work|dont work|"
    r"not working|isnt working|does nothing|nothing happens|blank|empty|404|500|undefined|nan|segfault|"
    r"hangs?|freez\w*|stuck|same (?:error|thing|issue|problem|result)|no luck|no change|keeps? (?:crashing|"
    r"failing)|permission denied|cannot|cant find|not found)\b")
_REQUEST = lazy(
    r"(?<!you )\b(?:also|too(?=\s*(?:[.!?,]|$))|as well|additionally|in addition|another thing|next|"
    r"now (?:lets|add|make|do|can|write|implement)|lets also|and then|can you|could you|would you|lets)\b")
_QUESTION_START = lazy(r"^(?:can|could|would|will|should|is|are|does|do|did|what|how|where|which|when|"
                             r"who|whats|hows|wheres|any idea|is there)\b")
_APPROVAL = lazy(
    r"^(?!(?:yeah|yes|ok|okay|yep)\s+no\b)"  # "yeah no" means no
    r"(?:perfect|great|awesome|nice|cool|thanks|thank you|thx|ty|lgtm|looks (?:good|great|perfect|fine)|"
    r"works|working|yup|exactly|sounds good|much better|good (?:job|call|catch|stuff)|"
    r"love it|brilliant|excellent|amazing|sweet|beautiful|all good|that works|this works|that fixed it|"
    r"you were right|nailed it|(?:thats|this is|that is|its) (?:exactly|just|precisely) what|"
    r"(?:thats|this is|its) (?:it|perfect|great|better|much better|right|correct|what i (?:wanted|meant|needed))|"
    # "ok", "yes", "right" approve only when nothing but thanks follows: "ok let's undo that" does not
    r"(?:yes|yep|yeah|ok(?:ay)?|correct|right|good)(?=[\s,.!]*(?:thanks?|thank you|thx|ty)?[\s.!]*$))\b")
_TURN = lazy(r"\b(?:but|except|however|though|although|only thing|one thing)\b")
_CURIOUS = lazy(r"\b(?:just curious|out of curiosity|im curious|curious (?:why|how|what)|i wonder)\b")
_OWN_DOING = lazy(r"\b(?:my (?:last|own|test|previous|local)|by mistake|i (?:committed|pushed|broke|"
                        r"messed))\b")
_REQUEST_VERB = lazy(r"^(?:please |pls |can you |could you )?(?:add|create|write|implement|build|make|"
                           r"set up|setup|generate|design|refactor|migrate|convert|port)\b")

# The agent's previous reply: did it act, or ask?
_PREV_ACTION = lazy(
    r"\b(?:i(?:ve| have)?\s+(?:just\s+|also\s+|now\s+)?(?:\w+ed|made|wrote|rewrote|put|set|built|ran|kept|left|"
    r"took|did|split|moved)|ill|i will|im going to|let me|running|now applying|now running|applying|"
    r"committed|installed|renamed|created|added|updated|converted|switched|done|here is|heres|now \w+s|"
    r"is now|are now)\b")
_PREV_ASKS = lazy(
    r"(?:should i|shall i|do you want|would you like|want me to|which|do you prefer|or\b|is it|is the|"
    r"what|do you|can you confirm|right|anything else|any other|next)[^?]*\?\s*$")


def _preceding_part(text: str, end: int, limit: int = 60) -> str:
    """The words before ``end`` back to the previous punctuation mark."""
    start = max(0, end - limit)
    breaks = [m.end() for m in _PART_BREAK.finditer(text, start, end)]
    return text[breaks[-1] if breaks else start:end].strip()


def _overlaps(part: str, prev_tokens: set[str]) -> bool:
    """A word of ``part`` in the reply, or (4+ letters) one that starts or is started by a reply word."""
    return any(token in prev_tokens or len(token) >= 4 and any(p.startswith(token) or token.startswith(p)
                                                               for p in prev_tokens if len(p) >= 4)
               for token in content_tokens(part))


# Words that keep a message corrective even when it also asks for something.
_CORRECTIVE_WORDS = lazy(r"\b(?:dont|do not|never|not|instead|revert|undo|again)\b")
_REPEATED = lazy(r"\b(?:again|every time|each time|once more|how many times|yet again|"
                       r"for the (?:second|third|\w+th) time)\b")


_CUE_REGEXES = tuple(
    lazy("(?m)^" + source.replace(r"\s", r"[ \t]") if anchored else source)
    for _name, _weight, _firm, source, anchored in _CUES
)
_FIRST_CLAUSE_ONLY = {"not-opener", "rejection-opener", "stop-interjection", "bare-wrong"}


@dataclass(slots=True)
class Message:
    """One user message, normalised, with the signals every stage reads."""

    lower: str  # lowercase, ASCII apostrophes
    bare: str  # apostrophes dropped, typos fixed
    prev: str | None  # the agent's previous reply, as given
    prev_bare: str = ""
    prev_asks: bool = False  # that reply ended with a question to the user
    prev_acted: bool = False  # that reply reports something the agent did
    bug: str | None = None  # the bug-report signal's text
    request: str | None = None  # the new-request signal's text
    is_question: bool = False
    clause_list: list[str] = field(default_factory=list)

    def refresh(self) -> None:
        bare = self.bare
        found = _BUG.search(bare)
        self.bug = found.group(0) if found else None
        found = _REQUEST.search(bare)
        self.request = found.group(0) if found else None
        last = (sentences(bare) or [bare])[-1]
        self.is_question = last.rstrip().endswith("?") and bool(
            _QUESTION_START.match(last) or _QUESTION_START.match((clauses(last) or [""])[-1]))
        self.clause_list = clauses(bare)

    def keep_after(self, position: int) -> None:
        """Judge only what follows ``position`` ("no worries, but …")."""
        self.bare = self.lower = self.bare[position:].strip()
        self.refresh()


def read_message(focus: str, prev_assistant: str | None) -> Message:
    """A :class:`Message` from the focus text and the agent's previous reply."""
    lower, bare = normalise(focus)
    prev = prev_assistant if isinstance(prev_assistant, str) and prev_assistant.strip() else None
    msg = Message(lower, bare, prev)
    if prev:
        msg.prev_bare = normalise(strip_quoted(prev[-1500:]))[1]
        msg.prev_asks = bool(_PREV_ASKS.search(msg.prev_bare[-300:]))
        msg.prev_acted = not msg.prev_asks and bool(_PREV_ACTION.search(msg.prev_bare))
    msg.refresh()
    return msg


def approval_turn(msg: Message) -> str | None:
    """An approval opening the message ("perfect, thanks"). When a "but …"
    follows, only what follows is kept and None is returned."""
    approval = _APPROVAL.match(msg.bare)
    if not approval:
        return None
    turn = _TURN.search(msg.bare, approval.end())
    if turn:
        msg.keep_after(turn.end())
        return None
    return approval.group(0)


def cue_hits(msg: Message) -> list[tuple[str, float, bool, str]]:
    """(name, weight, firm, matched text) of every cue in the message."""
    bare = msg.bare
    joined = "\n".join(msg.clause_list)
    first = msg.clause_list[0] if msg.clause_list else ""
    hits = []
    for (name, weight, firm, _source, anchored), regex in zip(_CUES, _CUE_REGEXES):
        target = bare if not anchored else first if name in _FIRST_CLAUSE_ONLY else joined
        match = regex.search(target)
        if match:
            hits.append((name, weight, firm, match.group(0)))
    return hits


@dataclass(frozen=True, slots=True)
class Contrast:
    kind: str  # "is-A-not-B" | "A-not-B" | "instead"
    rejected: str  # B: what the user rejects
    shown: str  # the matched text
    in_prev: bool  # B (or the replaced thing) appears in the agent's reply


def contrast_cue(msg: Message) -> Contrast | None:
    """"A, not B" / "is A not B" / "A instead of B" (see module doc)."""
    bare, prev = msg.bare, msg.prev
    prev_tokens = content_tokens(msg.prev_bare) if prev else set()
    if "not" in bare:
        found, kind = _NOT_B_ITS_A.search(bare) or _COPULA_CONTRAST.search(bare), "is-A-not-B"
        if not found:
            found, kind = _GENERIC_CONTRAST.search(bare), "A-not-B"
            if found and not _preceding_part(bare, found.start()):
                found = None  # ", not B" with nothing before it
        if found:
            rejected = found.group("b")
            shown = found.group(0) if kind != "A-not-B" else _preceding_part(bare, found.start()) + found.group(0)
            return Contrast(kind, rejected.strip(), shown.strip(), bool(prev) and _overlaps(rejected, prev_tokens))
    found = _INSTEAD.search(bare) if "instead" in bare else None
    if found:
        part = (found.group("b") or "") + " " + _preceding_part(bare, found.start())
        return Contrast("instead", (found.group("b") or "").strip(), found.group(0),
                        bool(prev) and _overlaps(part, prev_tokens))
    return None


@dataclass(frozen=True, slots=True)
class Signals:
    """What argues for or against a correction, beside the cues."""

    approval: str | None
    curious: bool
    own_doing: bool
    opens_task: bool
    repeated: bool
    corrective_words: bool


def signals(msg: Message, approval: str | None) -> Signals:
    first = msg.clause_list[0] if msg.clause_list else ""
    return Signals(
        approval=approval,
        curious=bool(_CURIOUS.search(msg.bare)),
        own_doing=bool(_OWN_DOING.search(msg.bare)),
        opens_task=bool(_REQUEST_VERB.match(first)),
        repeated=bool(_REPEATED.search(msg.bare)),
        corrective_words=bool(_CORRECTIVE_WORDS.search(msg.bare)),
    )


def heuristic_score(msg: Message, hits: list[tuple[str, float, bool, str]],
                    contrast: Contrast | None, sig: Signals) -> float:
    """The hand-tuned scorer of the earlier detector: firm cues stand alone,
    moderate cues add up, context adds, dampeners subtract (0..1)."""
    firm = [(w, n) for n, w, f, _m in hits if f]
    moderate = {n: w for n, w, f, _m in hits if not f}
    if contrast is not None:
        base = {"is-A-not-B": 0.55, "A-not-B": 0.3, "instead": 0.3}[contrast.kind]
        if contrast.kind == "instead":
            moderate["contrast"] = 0.6 if contrast.in_prev else (0.25 if msg.prev else 0.3)
        else:
            moderate["contrast"] = base + 0.45 if contrast.in_prev else (base - 0.1 if msg.prev else base)
    opens_task = not msg.prev and sig.opens_task
    damp = sum(weight for on, weight in ((msg.bug, 0.5), (msg.request and not sig.corrective_words, 0.35),
                                         (msg.is_question and not firm, 0.3), (msg.prev_asks, 0.4),
                                         (sig.own_doing, 0.4), (opens_task, 0.3)) if on)
    if opens_task and any(n == "dont-imperative" for _w, n in firm):
        firm = [f for f in firm if f[1] != "dont-imperative"]
        moderate["dont-in-request"] = 0.3
    mod_sum = sum(moderate.values()) + (0.2 if moderate and msg.prev_acted else 0.0) \
        + (0.25 if moderate and sig.repeated else 0.0)
    mod_score = max(0.0, min(1.0, mod_sum) - damp)
    firm_score = max((w for w, _n in firm), default=0.0)
    global_damp = (0.6 if sig.approval else 0.0) + (0.7 if sig.curious else 0.0)
    return max(0.0, min(1.0, firm_score + mod_score) - global_damp)
