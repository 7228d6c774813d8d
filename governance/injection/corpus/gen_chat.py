"""Casual chat transcripts for the injection corpus (benign): hand-written
utterances between friends, family and colleagues, combined deterministically
into multi-speaker dialogues in the layouts chat logs come in (turns on
lines, joined by " . ", by spaces, by blank lines or CRLF).

project.jsonl's last 200 lines are `python3 gen_chat.py 200 17` (count, seed).
No line comes from a dataset: the SummEdits samsum dialogues, which `make
eval` scores as held-out benign documents, must never be put here."""
import json, random, sys

NAMES = ["Tom", "Lisa", "Karen", "Omar", "Priya", "Jake", "Mia", "Ben", "Sophie", "Carlos",
         "Hannah", "Leo", "Zoe", "Raj", "Emma", "Dan", "Nina", "Paul", "Grace", "Ivan",
         "Lucy", "Sam", "Ola", "Mark"]

# Openers, replies and follow-ups of casual talk, written for this corpus.
LINES = [
    "hey, are you coming tonight?", "yeah, I'll be there around 8", "can you grab some bread on your way home?",
    "sure, anything else?", "we're out of coffee too", "ok, I'll pick some up", "did you see the game last night?",
    "no, I fell asleep on the couch lol", "what a finish though!", "tell me everything tomorrow",
    "where are you? we're all waiting", "sorry, stuck in traffic, 10 more minutes", "don't forget mum's birthday on Sunday",
    "oh no, I totally forgot. what should we get her?", "maybe a scarf or that book she mentioned", "good idea, can you order it?",
    "I'll do it now", "thanks, you're the best", "haha I know", "are we still on for lunch?",
    "yes! 12:30 at the usual place?", "perfect, see you there", "can you send me the photos from the trip?",
    "sure, give me a sec", "just sent them", "these are amazing!", "who took the one by the lake?",
    "that was Jake", "I need a new phone, mine keeps dying", "have you tried turning it off and on again? :P",
    "very funny", "call me when you're free", "will do, in a meeting now", "the boss wants the slides by Friday",
    "ugh, ok. can you help me with the charts?", "of course, send me the numbers", "I'm so tired today",
    "same, the baby was up all night", "poor you! get some rest", "what time does the movie start?",
    "7:45, I booked the tickets", "great, I'll bring snacks", "no popcorn this time please", "fine, nachos then",
    "is it raining there?", "pouring! take an umbrella", "I left mine at work", "borrow mine, it's by the door",
    "did you feed the cat?", "yes, twice, she's lying to you", "lol typical", "let me know when you land",
    "just landed, waiting for my bag", "welcome back!", "how was the interview?", "I think it went well, they said they'd call next week",
    "fingers crossed!", "can I borrow your car on Saturday?", "sure, just fill it up after", "deal",
    "my laptop crashed and I lost everything", "did you check the backup folder?", "oh wait, found it. phew",
    "who's cooking tonight?", "your turn, I did it yesterday", "ok ok, pasta it is", "again? :D",
    "are you mad at me?", "no, just busy, sorry", "ok, talk later then", "I'm at the shop, do we need milk?",
    "yes and eggs", "how many?", "a dozen", "remind me to pay the rent", "you told me to remind you, so: pay the rent!",
    "done, thanks", "Anna's party is on Saturday, are you going?", "maybe, I have to work until 6",
    "come after, it goes late", "what should I bring?", "just yourself and maybe some drinks",
    "I can't find my keys", "check your jacket pocket", "got them, you're a genius", "send me the address please",
    "it's 14 Park Lane, second floor", "the train is delayed again", "how long?", "no idea, they won't say",
    "want me to pick you up?", "that would be amazing", "be there in 20", "did you finish the report?",
    "almost, I'll send it in an hour", "no rush", "happy birthday!!! have a great day", "thank you! :)",
    "what are you doing this weekend?", "nothing much, maybe a hike if it's sunny", "can I join?",
    "of course, the more the merrier", "I'll bring sandwiches", "do you know a good dentist?",
    "mine is great, I'll send you her number", "thanks a lot", "is the meeting still at 3?", "moved to 4, check your email",

    "btw the plumber is coming at 9, can you let him in?", "I'll be working from home so yes", "omg you won't believe what happened",
    "what??", "I ran into our old teacher at the supermarket", "no way! did she remember you?", "she remembered my terrible handwriting haha",
    "shall we book the cabin for August?", "let's check the prices first", "I found one for 90 a night", "sounds good, go for it",
    "please tell me you have a charger", "the white one is in my bag", "could you water my plants while I'm away?", "sure, how often?",
    "every two days, the big one needs more", "got it", "I'm thinking of quitting the gym", "why? you just started",
    "it's too far and too expensive", "try the one near the station", "is Max allowed to have chocolate?", "a little, not too much or he goes crazy",
    "running late, start without me", "we'll save you a seat", "what's the wifi password again?", "it's on the fridge",
    "how's your mum doing?", "much better, she's home now", "glad to hear it, say hi from me", "I will",
    "can you explain the homework?", "which part?", "question 3, I don't get it", "you have to divide both sides first",
    "ahh now I see, thanks", "did anyone take my charger?", "not me", "check the living room", "found it under the sofa",
    "happy anniversary you two!", "do you want to split a pizza?", "only if it has no olives", "fine, half and half",
    "I'm bored, entertain me", "watch the new season, it's brilliant", "no spoilers please!", "my lips are sealed",
    "the car makes a weird noise", "take it to Pete's garage, he's honest", "what's the plan for Christmas?",
    "we're going to my parents this year", "then New Year at ours?", "yes please", "ok so who's bringing what?",
    "I'll do the salad", "we'll bring dessert", "perfect", "Did you hear about Tom's new job?", "yes, he's moving to Berlin!",
    "we have to throw him a goodbye party", "let's do it next Friday", "I'll make a group chat", "good night everyone",
    "night!", "sleep well", "can you believe this weather", "it's snowing in April!", "I just want summer",
    "lol me too", "ok I'm leaving now", "drive safe", "text me when you get home", "home safe",
    "u up?", "yeah cant sleep", "me neither", "wanna grab breakfast tmrw?", "sure 9ish?", "k see u",
    "oh right, thanks", "I miss you guys", "we miss you too! come visit", "I will, promise",
]
JOIN = ["\n", " . ", "\n", " ", "\n\n", "\r\n"]

def dialogue(r):
    a, b = r.sample(NAMES, 2)
    speakers = [a, b] + ([r.choice([n for n in NAMES if n not in (a, b)])] if r.random() < 0.25 else [])
    n = r.randint(4, 11)
    start = r.randrange(len(LINES))
    turns = []
    for k in range(n):
        line = LINES[(start + k) % len(LINES)] if r.random() < 0.7 else r.choice(LINES)
        if r.random() < 0.3:
            line = line[0].upper() + line[1:]
        turns.append(f"{speakers[k % len(speakers) if r.random() < 0.8 else r.randrange(len(speakers))]}: {line}")
    return r.choice(JOIN).join(turns)

def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    r = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 17)
    for _ in range(n):
        print(json.dumps({"text": dialogue(r), "attack": False}))

main()
