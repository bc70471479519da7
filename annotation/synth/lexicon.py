"""Hand-written word lists for the synthetic corpus generator.

Every list here is ours (written for SITAR, no external corpus). The operators in
:mod:`annotation.synth.operators` look words up in these tables to plan edits of a known tier:
safe T0 material (fillers, contractions, spelling variants, homophones of function words), T1/T2
substitutions (antonyms, action verbs, modals, conditions), and the negation and number vocabularies
that the T0 safety guard checks. Keys are lowercase; matching is case-insensitive and the operators
carry the original capitalization over.
"""

from __future__ import annotations

#: Version of these lists; part of the generator version recorded with every dataset.
LEXICON_VERSION = "1"

#: Fillers and discourse markers that an ASR transcript may add or drop without changing meaning.
FILLERS = ("um", "uh", "er", "erm", "hmm", "you know", "I mean", "like", "well", "so")
#: Fillers the generator may *insert* (``like``/``so``/``well`` are words too; only dropped when the
#: reference already uses them as fillers next to a comma).
INSERTABLE_FILLERS = ("um", "uh", "er", "erm", "you know", "I mean")
#: Tokens (normalized) that are pure fillers wherever they occur.
PURE_FILLERS = frozenset({"um", "uh", "er", "erm", "hmm", "mm", "uhm"})

#: Normalized tokens that carry negation. A T0 operator must keep their count unchanged.
NEGATIONS = frozenset(
    {
        "not", "no", "never", "nobody", "nothing", "none", "nowhere", "neither", "nor", "cannot",
        "dont", "doesnt", "didnt", "cant", "couldnt", "wont", "wouldnt", "shouldnt", "isnt", "arent",
        "wasnt", "werent", "havent", "hasnt", "hadnt", "mustnt", "neednt", "aint", "mightnt",
    }
)  # fmt: skip

#: Function words an ASR system often drops; dropping one is T0 (never a negation or a number).
DROPPABLE_FUNCTION_WORDS = frozenset(
    {"the", "a", "an", "that", "just", "really", "actually", "well", "so", "oh", "okay", "then"}
)
#: Words never counted as content words when choosing T1 targets.
FUNCTION_WORDS = frozenset(
    {
        "the", "a", "an", "and", "or", "but", "so", "of", "to", "in", "on", "at", "for", "from",
        "by", "with", "as", "is", "are", "was", "were", "be", "been", "being", "it", "its", "this",
        "that", "these", "those", "i", "im", "ive", "id", "ill", "me", "my", "we", "our", "us",
        "you", "your", "he", "she", "him", "her", "his", "they", "them", "their", "there", "here",
        "have", "has", "had", "do", "does", "did", "will", "would", "can", "could", "should",
        "may", "might", "must", "shall", "just", "about", "into", "than", "then", "also", "too",
        "very", "really", "thats", "theres", "youre", "theyre", "hes", "shes",
        "which", "who", "what", "when", "where", "why", "how", "if", "because", "since", "some",
        "any", "all", "up", "out", "off", "over", "still", "yet", "only", "even", "again", "please",
    }
)  # fmt: skip

#: Contractions and their expansions (both directions are T0). Keys are the contracted forms.
CONTRACTIONS = {
    "don't": "do not", "doesn't": "does not", "didn't": "did not", "can't": "cannot",
    "won't": "will not", "isn't": "is not", "aren't": "are not", "wasn't": "was not",
    "weren't": "were not", "haven't": "have not", "hasn't": "has not", "hadn't": "had not",
    "couldn't": "could not", "wouldn't": "would not", "shouldn't": "should not",
    "I'm": "I am", "I've": "I have", "I'll": "I will", "I'd": "I would", "it's": "it is",
    "that's": "that is", "there's": "there is", "we're": "we are", "we've": "we have",
    "we'll": "we will", "you're": "you are", "you'll": "you will", "you've": "you have",
    "they're": "they are", "they'll": "they will", "he's": "he is", "she's": "she is",
    "let's": "let us", "what's": "what is",
}  # fmt: skip

#: British/American and other spelling variants (T0 both ways).
SPELLING_VARIANTS = {
    "colour": "color", "centre": "center", "cancelled": "canceled", "cancelling": "canceling",
    "travelling": "traveling", "travelled": "traveled", "programme": "program",
    "licence": "license", "metre": "meter", "metres": "meters", "litre": "liter",
    "favour": "favor", "favourite": "favorite", "behaviour": "behavior", "organise": "organize",
    "organised": "organized", "realise": "realize", "realised": "realized", "apologise": "apologize",
    "recognise": "recognize", "analyse": "analyze", "catalogue": "catalog", "cheque": "check",
    "neighbour": "neighbor", "labour": "labor", "harbour": "harbor", "honour": "honor",
    "theatre": "theater", "defence": "defense", "jewellery": "jewelry", "grey": "gray",
    "tyre": "tire", "kerb": "curb", "enrol": "enroll", "fulfil": "fulfill", "judgement": "judgment",
    "okay": "OK", "alright": "all right", "email": "e-mail", "online": "on-line",
    "mum": "mom", "aeroplane": "airplane", "cosy": "cozy", "modelling": "modeling",
    "labelled": "labeled", "focussed": "focused", "practise": "practice", "storey": "story",
}  # fmt: skip

#: Compounds that ASR output often splits (T0): closed compound -> its parts.
COMPOUNDS = {
    "weekend": "week end", "someone": "some one", "anyone": "any one", "everyone": "every one",
    "anything": "any thing", "everything": "every thing", "something": "some thing",
    "password": "pass word", "birthday": "birth day", "downstairs": "down stairs",
    "upstairs": "up stairs", "tomorrow": "to morrow", "today": "to day", "tonight": "to night",
    "into": "in to", "onto": "on to", "maybe": "may be", "anyway": "any way", "online": "on line",
    "inbox": "in box", "checkout": "check out", "login": "log in", "setup": "set up",
    "lunchtime": "lunch time", "bedroom": "bed room", "bathroom": "bath room",
    "afternoon": "after noon", "overnight": "over night", "timetable": "time table",
    "headphones": "head phones", "railway": "rail way", "airport": "air port",
    "website": "web site", "workshop": "work shop", "deadline": "dead line",
    "feedback": "feed back", "paperwork": "paper work", "meantime": "mean time",
    "whatever": "what ever", "already": "all ready", "sometimes": "some times",
    "somewhere": "some where", "everywhere": "every where", "outside": "out side",
    "inside": "in side", "handover": "hand over", "handbook": "hand book",
    "weekday": "week day", "weekly": "week ly", "payroll": "pay roll", "upgrade": "up grade",
    "lifetime": "life time", "newsletter": "news letter", "playground": "play ground",
}  # fmt: skip
#: Open compounds that ASR output may merge (T0): parts -> merged form.
MERGES = {
    "in front": "infront", "a lot": "alot", "all right": "alright", "any more": "anymore",
    "every day": "everyday", "some time": "sometime", "each other": "eachother",
    "post office": "postoffice", "front desk": "frontdesk", "bus stop": "busstop",
    "car park": "carpark", "phone call": "phonecall", "check in": "checkin",
    "follow up": "followup", "pick up": "pickup", "sign up": "signup", "as well": "aswell",
    "no one": "noone", "in case": "incase", "at least": "atleast", "per cent": "percent",
}  # fmt: skip

#: Homophones of function words (T0 when swapped outside numbers: ``their`` -> ``there``).
HOMOPHONES = {
    "their": ("there", "they're"), "there": ("their",), "they're": ("their", "there"),
    "your": ("you're",), "you're": ("your",), "its": ("it's",), "it's": ("its",),
    "whose": ("who's",), "who's": ("whose",), "too": ("to",), "hear": ("here",),
    "here": ("hear",), "weather": ("whether",), "whether": ("weather",), "our": ("hour",),
    "by": ("buy", "bye"), "right": ("write",), "write": ("right",), "no": ("know",),
    "know": ("no",), "new": ("knew",), "knew": ("new",), "would": ("wood",), "allowed": ("aloud",),
}  # fmt: skip
#: Homophone swaps that would change meaning (negation/number/ownership): never used as T0.
UNSAFE_HOMOPHONES = frozenset({"no", "know", "too", "to", "our", "hour", "right", "write"})

#: Antonym pairs for T2 (on outcome spans) and T1 (on inform spans); each pair is used both ways.
ANTONYMS = (
    ("increase", "decrease"), ("increased", "decreased"), ("raise", "lower"), ("open", "close"),
    ("opened", "closed"), ("start", "stop"), ("started", "stopped"), ("enable", "disable"),
    ("add", "remove"), ("added", "removed"), ("accept", "decline"), ("accepted", "declined"),
    ("approve", "reject"), ("approved", "rejected"), ("buy", "sell"), ("bought", "sold"),
    ("include", "exclude"), ("included", "excluded"), ("more", "less"), ("higher", "lower"),
    ("earlier", "later"), ("early", "late"), ("first", "last"), ("on", "off"), ("up", "down"),
    ("before", "after"), ("above", "below"), ("over", "under"), ("minimum", "maximum"),
    ("left", "right"), ("north", "south"), ("east", "west"), ("arrive", "depart"),
    ("arrives", "departs"), ("arrival", "departure"), ("lend", "borrow"), ("in", "out"),
    ("inbound", "outbound"), ("upstairs", "downstairs"), ("morning", "evening"),
    ("am", "pm"), ("a.m.", "p.m."), ("yes", "no"), ("always", "never"), ("all", "none"),
    ("everyone", "no one"), ("with", "without"), ("cheaper", "dearer"), ("cheapest", "dearest"),
    ("good", "bad"), ("fine", "broken"), ("working", "broken"), ("right", "wrong"),
    ("correct", "incorrect"), ("easy", "difficult"), ("happy", "unhappy"), ("busy", "quiet"),
    ("new", "old"), ("big", "small"), ("large", "small"), ("hot", "cold"), ("clean", "dirty"),
    ("full", "empty"), ("long", "short"), ("fast", "slow"), ("better", "worse"),
    ("best", "worst"), ("safe", "dangerous"), ("cheap", "expensive"), ("true", "false"),
    ("pleased", "disappointed"), ("helpful", "unhelpful"), ("friendly", "rude"),
    ("polite", "rude"), ("strong", "weak"), ("high", "low"), ("light", "heavy"),
    ("clear", "unclear"), ("likely", "unlikely"), ("possible", "impossible"),
    ("available", "unavailable"), ("valid", "invalid"), ("paid", "unpaid"),
    ("won", "lost"), ("win", "lose"), ("wins", "loses"), ("winning", "losing"),
    ("rose", "fell"), ("rise", "fall"), ("gained", "lost"), ("profit", "loss"),
    ("inside", "outside"), ("forward", "backward"), ("tomorrow", "yesterday"),
    ("next", "last"), ("same", "different"), ("allow", "forbid"), ("allowed", "forbidden"),
    ("permitted", "prohibited"), ("urgent", "routine"), ("arrived", "departed"),
)  # fmt: skip
#: Condition words and their reversals (T2 on outcome spans).
CONDITION_SWAPS = {
    "if": ("unless",), "unless": ("if",), "until": ("after", "before"), "before": ("after",),
    "after": ("before",), "only": ("also",), "except": ("including",), "including": ("except",),
    "within": ("after",), "at least": ("at most",), "at most": ("at least",),
    "more than": ("less than",), "less than": ("more than",), "fewer than": ("more than",),
    "no later than": ("no earlier than",), "no earlier than": ("no later than",),
    "instead of": ("as well as",), "as well as": ("instead of",),
}  # fmt: skip

#: Modal and obligation changes (T2 on outcome spans).
MODAL_SWAPS = {
    "must": ("may", "might", "can"), "may": ("must", "will"), "might": ("must", "will"),
    "can": ("must", "should"), "could": ("must", "should"), "should": ("could", "must"),
    "will": ("may", "might"), "would": ("will",), "shall": ("may",),
    "have to": ("may",), "has to": ("may",), "need to": ("may",), "needs to": ("may",),
    "required": ("optional",), "optional": ("required",), "mandatory": ("optional",),
}  # fmt: skip

#: Action verbs (lemmas) and plausible, outcome-changing replacements (T2 on outcome spans).
ACTION_VERBS = {
    "cancel": ("confirm", "renew", "book"), "confirm": ("cancel", "change"),
    "book": ("cancel", "check", "look"), "send": ("hold", "keep", "return"),
    "refund": ("charge", "credit"), "charge": ("refund", "credit"), "pay": ("pay back", "owe"),
    "call": ("email", "text", "fall"), "email": ("call", "text"), "text": ("call", "email"),
    "transfer": ("refer", "hold"), "move": ("keep", "remove"), "keep": ("drop", "move"),
    "buy": ("sell", "rent"), "sell": ("buy", "tell"), "rent": ("buy", "sell"),
    "open": ("close", "lock"), "close": ("open", "clear"), "lock": ("unlock", "block"),
    "unlock": ("lock", "block"), "block": ("unblock", "lock"), "renew": ("cancel", "review"),
    "replace": ("repair", "return"), "repair": ("replace", "return"),
    "return": ("keep", "replace"), "delete": ("keep", "archive"), "archive": ("delete", "share"),
    "share": ("hide", "delete"), "print": ("scan", "sign"), "sign": ("print", "scan"),
    "approve": ("reject", "review"), "reject": ("approve", "accept"),
    "accept": ("reject", "except"), "submit": ("withdraw", "revise"), "upload": ("download",),
    "download": ("upload",), "collect": ("deliver", "correct"), "deliver": ("collect", "deliberate"),
    "bring": ("take", "ring"), "take": ("bring", "make"), "leave": ("take", "live"),
    "start": ("stop", "finish"), "stop": ("start", "shop"), "finish": ("start", "fix"),
    "increase": ("decrease", "reduce"), "reduce": ("increase", "raise"), "raise": ("lower", "erase"),
    "check": ("change", "cheque"), "change": ("check", "keep"), "update": ("delete", "keep"),
    "add": ("remove", "drop"), "remove": ("add", "move"), "join": ("leave", "skip"),
    "attend": ("skip", "extend"), "extend": ("end", "attend"), "end": ("extend", "send"),
    "invite": ("exclude", "remind"), "remind": ("invite", "mind"), "order": ("cancel", "return"),
    "reserve": ("release", "review"), "release": ("hold", "reserve"), "hold": ("release", "send"),
    "meet": ("miss", "greet"), "visit": ("avoid", "revisit"), "fix": ("check", "fit"),
    "install": ("uninstall", "remove"), "turn on": ("turn off",), "turn off": ("turn on",),
    "switch on": ("switch off",), "switch off": ("switch on",), "sign up": ("sign out",),
    "pick up": ("drop off",), "drop off": ("pick up",), "log in": ("log out",),
    "wait": ("leave", "go"), "go": ("stay", "wait"), "stay": ("go", "leave"),
    "come": ("go", "stay"), "arrive": ("depart", "leave"), "depart": ("arrive", "stay"),
    "board": ("leave", "order"), "take off": ("land",), "land": ("take off",),
    "lend": ("borrow", "send"), "borrow": ("lend", "buy"), "give": ("take", "keep"),
    "tell": ("ask", "sell"), "ask": ("tell", "task"), "schedule": ("cancel", "postpone"),
    "postpone": ("bring forward", "cancel"), "delay": ("advance", "cancel"),
    "prescribe": ("stop", "describe"), "take out": ("put in",), "pause": ("resume", "cancel"),
    "resume": ("pause", "stop"), "win": ("lose", "draw"), "lose": ("win", "use"),
    "sell out": ("stock up",), "allow": ("forbid", "block"), "ban": ("allow", "plan"),
}  # fmt: skip

#: Entities used when swapping names, places and organisations (invented or generic; no real
#: private persons). Phonetically close swaps are preferred ("Boston" -> "Austin").
ENTITY_NAMES = (
    "Aisha", "Amara", "Anil", "Anita", "Bruno", "Camille", "Carla", "Chen", "Daniel", "Daniela",
    "Dmitri", "Elena", "Ellen", "Emeka", "Fatima", "Felix", "Grace", "Hana", "Hannah", "Hiroshi",
    "Ines", "Ivan", "Jamal", "Jana", "Joanna", "Jonah", "Kai", "Karim", "Karen", "Kofi", "Lena",
    "Leon", "Liam", "Lina", "Luca", "Lucas", "Maria", "Mario", "Marta", "Martin", "Mei", "Mia",
    "Mohammed", "Nadia", "Nadim", "Nina", "Noah", "Olga", "Omar", "Oscar", "Pablo", "Paula",
    "Priya", "Rafael", "Ravi", "Rita", "Rosa", "Sami", "Sara", "Sean", "Sofia", "Sonia", "Tariq",
    "Tom", "Tomas", "Vera", "Victor", "Wei", "Yara", "Yusuf", "Zara", "Zoe", "Patel", "Nguyen",
    "Okafor", "Kowalski", "Haddad", "Silva", "Tanaka", "Schmidt", "Moreau", "Rossi", "Kim",
    "Mendez", "Novak", "Larsen", "Osei", "Costa", "Brennan", "Fischer", "Murphy", "Khan", "Ortiz",
)  # fmt: skip
ENTITY_PLACES = (
    "Boston", "Austin", "Houston", "Denver", "Dover", "Dublin", "Berlin", "Bern", "Lisbon",
    "Leeds", "Lyon", "Milan", "Madrid", "Malta", "Paris", "Perth", "Porto", "Prague", "Quebec",
    "Rome", "Riga", "Oslo", "Osaka", "Seoul", "Sydney", "Turin", "Vienna", "Warsaw", "Zurich",
    "Nairobi", "Lagos", "Accra", "Cairo", "Delhi", "Mumbai", "Lima", "Bogota", "Toronto",
    "Chicago", "Phoenix", "Portland", "Glasgow", "Bristol", "Cardiff", "Belfast", "Brighton",
    "Bath", "York", "Manchester", "Munich", "Hamburg", "Geneva", "Genoa", "Athens", "Helsinki",
    "Krakow", "Seville", "Valencia", "Naples", "Nice", "Marseille", "Ghent", "Antwerp",
    "Amsterdam", "Rotterdam", "Copenhagen", "Stockholm", "Bergen", "Auckland", "Adelaide",
)  # fmt: skip
ENTITY_ORGS = (
    "Northwind", "Brightline", "Greenleaf", "Bluewater", "Redstone", "Silverpeak", "Maple Health",
    "Harbor Bank", "Summit Air", "Orbit Mobile", "Crescent Energy", "Keystone Insurance",
)  # fmt: skip

MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
#: Confusable month/weekday pairs (sound-alike first).
MONTH_CONFUSIONS = {
    "june": ("July",), "july": ("June",), "march": ("May",), "may": ("March",),
    "april": ("August",), "august": ("April",), "september": ("November", "December"),
    "november": ("December", "September"), "december": ("November",), "january": ("February",),
    "february": ("January",), "october": ("November",),
}  # fmt: skip
WEEKDAY_CONFUSIONS = {
    "monday": ("Sunday", "Tuesday"), "tuesday": ("Thursday",), "thursday": ("Tuesday",),
    "wednesday": ("Monday", "Friday"), "friday": ("Monday", "Saturday"),
    "saturday": ("Sunday", "Thursday"), "sunday": ("Monday", "Saturday"),
}  # fmt: skip
#: Relative time words (T2 swaps on outcome spans).
TIME_WORD_SWAPS = {
    "today": ("tomorrow", "Tuesday"), "tomorrow": ("today", "Monday"), "tonight": ("tomorrow",),
    "yesterday": ("today",), "morning": ("evening", "afternoon"),
    "afternoon": ("morning", "evening"), "evening": ("morning",), "noon": ("midnight", "moon"),
    "midnight": ("midday", "noon"), "weekly": ("monthly", "weakly"), "monthly": ("weekly", "yearly"),
    "daily": ("weekly",), "hourly": ("daily",), "annually": ("monthly",),
}  # fmt: skip

#: Openers for restated values, used to build references that repeat a decisive value (for the
#: T2 -> T1 boundary case: a changed value that is restated correctly elsewhere is recoverable).
RESTATEMENTS = (
    " That's {value}.", " I repeat, {value}.", " So that's {value}.", " Again, {value}.",
    " Just to confirm, {value}.", " Once more, {value}.",
)  # fmt: skip

#: Causal openers of inform spans: flipping such a reason can suggest a different outcome
#: (the T1 -> T2 boundary case).
CAUSAL_OPENERS = frozenset({"because", "since", "as", "so", "due", "given", "otherwise", "cause"})
