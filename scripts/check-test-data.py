#!/usr/bin/env python3
"""No test data in the product: no persona's line or answer, no fixture's text, in a string the
product code holds (a prompt, a vocabulary, a rule). `make test` runs it; it exits 1 naming each
string and the test line it comes from.

What counts as test data: every line the personas say and every answer they expect
(Tests/Personas), and every sentence the audio fixtures say (Tests/Fixtures/make-fixtures.sh).
What is checked: the string literals of Sources/ (comments may quote an example; they are
documentation, not behaviour). A literal of two words or more found inside a test line, or a test
line or answer found inside a literal, is a hit. Single words are vocabulary (digits, days, yes)
and not checked; a phrase that is generic language whatever a persona says (a yes like "of
course") goes in ALLOWED with the reason.
"""
import pathlib
import re
import sys

REPOSITORY = pathlib.Path(__file__).resolve().parent.parent

# Phrases of two words or more that product code may hold though a persona says them too: what
# any caller says, not what a persona was written to say. Each with why.
ALLOWED = {
    # The interpreter's lexicons (ReplyInterpreter, YesNo): how anyone asks for a callback, refuses,
    # hedges or says no. Persona lines use them because people do.
    "in a meeting": "asking for a callback (ReplyInterpreter.callBack)",
    "ring me back": "asking for a callback (ReplyInterpreter.callBack)",
    "i'm at work": "asking for a callback (ReplyInterpreter.callBack)",
    "rather you didn't": "a refusal (ReplyInterpreter.refusals)",
    "who am i speaking": "a question asking for a name (AnswerKind)",
    "don't want to": "a refusal (ReplyInterpreter.refusals)",
    "that's private": "a refusal (ReplyInterpreter.refusals)",
    "we'll see": "a hedge (ReplyInterpreter.hedges)",
    "hard to say": "a hedge (ReplyInterpreter.hedges)",
    "hard to tell": "a hedge (ReplyInterpreter.hedgePhrases), what anyone says for not knowing",
    "not the one who": "a hedge (ReplyInterpreter.hedgePhrases): what anyone says who is not the one to ask",
    "between me and": "a refusal (ReplyInterpreter.refusals): what anyone says of a private matter",
    "you won't need": "a decline (ReplyInterpreter.declines): the caller says the thing asked for is not needed",
    "i'll tell you": "a hedge (ReplyInterpreter.hedgePhrases): an answer promised for later",
    "i am not": "a negation (YesNo.noes)",
    "i don't think so": "a soft no (YesNo.noes)",
    "of course not": "a no (YesNo.noes)",
    "who is this": "a question back (ReplyInterpreter)",
    "who is calling": "a question back (ReplyInterpreter)",
    "call me back": "asking for a callback (ReplyInterpreter.callBack)",
    "call me later": "asking for a callback (ReplyInterpreter.callBack)",
    "말씀드리기 어려": "a refusal (KoreanReply)",
    "안 돼": "a no (KoreanReply): what anyone says for one",
    "다시 전화": "asking for a callback (KoreanReply)",
    "지금 바빠": "busy now, call later (KoreanReply)",
    "운전 중": "driving, call later (KoreanReply)",
    # How days and times are said and written.
    "다음 주": "next week (the Korean date vocabulary)",
    "p m": "a time's p.m. (SpokenDate)",
    "a m": "a time's a.m. (SpokenDate)",
    "day after tomorrow": "a relative day (SpokenDate), what anyone says for it",
    "who's calling": "a question back (ReplyInterpreter)",
    "what is this regarding": "a question back (ReplyInterpreter)",
    "could you tell": "how any question is put (AnswerKind's question openings)",
    "may i ask": "how any question is put (AnswerKind's question openings)",
    "is there a": "how any question is put (AnswerKind's question openings)",
    "unable to take your call": "an answering machine's words (AnsweringMachineDetector)",
    "all other": "a phone menu's catch-all option, reaching a person (PhoneMenu.personWords)",
}
# A call screener's words (Dialogue/CallScreener.swift): how any screener asks for a name and a
# reason, holds the caller, or turns the call away. The held-out screeners (CalleePersona+Screeners)
# say them because every screener does; their sentences were written after the phrases were tuned
# (CallScreenerTests) and are not among them.
ALLOWED.update({phrase: "a call screener's words (CallScreener)" for phrase in [
    "call screening", "can't come to the phone", "i'll see if", "let them know", "name and what you're calling about", "one moment",
    "pass it along", "please hold", "reason for", "say your name", "see if", "state your name", "stay on the line", "the person you're",
    "what it's about", "what you're calling about", "why you're calling", "your name and the reason", "your name and why",
    "기다려 주", "무슨 용무", "받기 어렵", "받으시는 분", "성함과 용건", "성함과 전화", "연결 중", "연결할 수 없", "연결해 드리", "용건을 말씀",
    "자동 응답", "통화 비서",
]})


def normalise(text):
    text = re.sub(r"<[^>]*>", " ", text)
    text = re.sub(r"[^\w\s'+]", " ", text.lower())
    return " ".join(text.split())


def swift_strings(path):
    """The string literals of a Swift file outside comments (single-line literals)."""
    source = path.read_text(encoding="utf-8")
    source = re.sub(r"/\*.*?\*/", "", source, flags=re.S)
    for number, line in enumerate(source.split("\n"), 1):
        code = re.sub(r'("(?:[^"\\]|\\.)*")|//.*', lambda m: m.group(1) or "", line)
        for literal in re.findall(r'"((?:[^"\\]|\\.)*)"', code):
            yield number, literal


FUNCTION_WORDS = set("i a an the to of in on at is it it's you we me my your can am are would not no yes and or that this "
                     "do don't be will have i'm i'd i'll so just".split())


def persona_texts(ROOT):
    """(normalised text, where, kind) for every line a persona says and every answer it expects."""
    for path in sorted((ROOT / "Tests/Personas").glob("*.swift")):
        for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
            where = f"{path.relative_to(ROOT)}:{number}"
            # .init("name", questions, [said…], [(.status, "answer")…]) — questions may be a closure's `$0`
            said = re.search(r'\.init\("[^"]*", [\w$]+, \[(.*?)\]', line)
            for literal in re.findall(r'"((?:[^"\\]|\\.)*)"', said.group(1) if said else ""):
                yield normalise(literal), where, "line"
            for literal in re.findall(r'\(\.\w+, "((?:[^"\\]|\\.)*)"\)', line):
                answer = normalise(re.sub(r"\{[^}]*\}", " ", literal))
                if answer not in ("yes", "no") and not re.fullmatch(r"[\d t:]*", answer):
                    yield answer, where, "answer"
            for literal in re.findall(r'^\s*\["((?:[^"\\]|\\.)*)"', line) if not said else []:
                yield normalise(literal), where, "line"   # a said line on its own row
            for literal in re.findall(r'screener\("((?:[^"\\]|\\.)*)"\)', line):
                yield normalise(literal), where, "line"   # a call screener's opening (CalleePersona+Screeners)
            for literal in re.findall(r'menu\("[^"]*", "((?:[^"\\]|\\.)*)"\)', line):
                yield normalise(literal), where, "line"   # a phone menu's level (CalleePersona+Menus)
            for literal in re.findall(r'^\s*"((?:[^"\\]|\\.)*)"\s*[,\]]', line) if not said else []:
                yield normalise(literal), where, "line"   # a said line continuing a list on its own row


def fixture_texts(ROOT):
    fixtures = ROOT / "Tests/Fixtures/make-fixtures.sh"
    for number, line in enumerate(fixtures.read_text(encoding="utf-8").split("\n"), 1):
        match = re.match(r'say \S+\s+\S+\s+"(.*)"', line)
        if match:
            yield normalise(match.group(1)), f"{fixtures.relative_to(ROOT)}:{number}", "line"


def telling(words):
    """Whether a phrase says more than any sentence would: three words, or two that are not both
    function words (Korean words carry their particles: every one counts)."""
    return len(words) >= 3 or (len(words) == 2 and sum(w not in FUNCTION_WORDS for w in words) == 2)


def within(needle, haystack):
    """`needle` as whole words of `haystack`; a Korean word may go on with its particles
    ("오만 원" is in "오만 원이요")."""
    end = "" if re.search(r"[\uac00-\ud7a3]$", needle) else "( |$)"
    return re.search(rf"(^| ){re.escape(needle)}{end}", haystack) is not None


def hits_in(ROOT):
    """Every string of ROOT/Sources that is test data, described; and how many test lines there are."""
    tests = [t for t in list(persona_texts(ROOT)) + list(fixture_texts(ROOT)) if t[0]]
    hits = []
    for path in sorted((ROOT / "Sources").rglob("*.swift")):
        for number, literal in swift_strings(path):
            text = normalise(literal.replace("\\n", " "))
            if not text or text in ALLOWED:
                continue
            for test, where, kind in tests:
                if kind == "line" and telling(text.split()) and within(text, test):
                    hits.append(f"{path.relative_to(ROOT)}:{number}: \"{literal}\" is what a persona or fixture says ({where}: \"{test}\")")
                    break
                if (kind == "answer" or len(test.split()) >= 3) and test not in ALLOWED and within(test, text):
                    hits.append(f"{path.relative_to(ROOT)}:{number}: \"{literal}\" holds a test {kind} ({where}: \"{test}\")")
                    break
    return hits, len(tests)


def self_test():
    """The check finds a planted persona line and answer, and passes the same tree without them."""
    import tempfile
    with tempfile.TemporaryDirectory() as directory:
        root = pathlib.Path(directory)
        (root / "Tests/Personas").mkdir(parents=True)
        (root / "Tests/Fixtures").mkdir(parents=True)
        (root / "Sources/Goal").mkdir(parents=True)
        (root / "Tests/Personas/P.swift").write_text(
            '        .init("a", q, ["Put me down for nine thirty.", "Call Ada Quist."], [(.answered, "09:30"), (.answered, "Ada Quist")]),\n')
        (root / "Tests/Fixtures/make-fixtures.sh").write_text('say en_x en-us "The blue kettle whistles."\n')
        clean = 'let phrases = ["nine", "thirty"] // "Put me down for nine thirty." in a comment is documentation\n'
        (root / "Sources/Goal/Rule.swift").write_text(clean)
        assert hits_in(root)[0] == [], hits_in(root)[0]
        (root / "Sources/Goal/Rule.swift").write_text(clean + 'let prompt = "down for nine thirty"\nlet name = "Ada Quist"\n'
                                                     'let fixture = "blue kettle"\n')
        found = hits_in(root)[0]
        assert len(found) == 3, found
    print("check-test-data: the self-test finds a planted persona line, answer and fixture text")


def main():
    if sys.argv[1:] == ["--self-test"]:
        self_test()
        return 0
    hits, tests = hits_in(REPOSITORY)
    for hit in hits:
        print(hit)
    if hits:
        print(f"check-test-data: {len(hits)} strings in Sources/ come from the personas or fixtures "
              "(move them out, or add a generic phrase to ALLOWED in scripts/check-test-data.py with its reason)")
        return 1
    print(f"check-test-data: no persona line, answer or fixture text in Sources/ ({tests} test lines and answers)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
