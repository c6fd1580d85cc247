#!/usr/bin/env python3
"""A near-duplicate corpus for timing `trawl dedup` end to end (the README's dedup figures).

  bench/dedup_corpus.py OUT SEED

4,000 originals of 150-600 words drawn from a Zipfian vocabulary of 30,000 letter-only words
(digits would be folded by the shingling), each with 1-5 copies that have 0-8% of their words
replaced, half of them with a dated line prepended; shuffled, written as OUT/part-{0..7}.jsonl
and, concatenated, as OUT-one/all.jsonl. Ids are `c<cluster>/<k>` (k = 0: the original).
Then, for example:

  /usr/bin/time -f "%e s %M KB" trawl dedup --quiet --input OUT --output /tmp/d8
"""
import random, json, os, sys
random.seed(int(sys.argv[2]))
out=sys.argv[1]; os.makedirs(out, exist_ok=True)
V=30000
w=[1/(r**1.1) for r in range(1,V+1)]
vocab=["".join(chr(97+(i//26**k)%26) for k in range(4)) for i in range(V)]
docs=[]
for c in range(4000):
    base=random.choices(vocab, w, k=150+random.randrange(450))
    docs.append({"id":f"c{c}/0","text":" ".join(base)})
    for k in range(1, 2+random.randrange(5)):
        rate=random.random()*0.08
        t=[x if random.random()>=rate else random.choices(vocab,w)[0] for x in base]
        text=" ".join(t)
        if random.random()<0.5: text=f"Posted on 20{10+random.randrange(15)}-0{1+random.randrange(9)}-1{random.randrange(9)} by {random.choice(vocab)}\n"+text
        docs.append({"id":f"c{c}/{k}","text":text})
random.shuffle(docs)
n=len(docs); per=-(-n//8)
for i in range(8):
    with open(f"{out}/part-{i}.jsonl","w") as f:
        for d in docs[i*per:(i+1)*per]: f.write(json.dumps(d)+"\n")
os.makedirs(out+"-one", exist_ok=True)
with open(f"{out}-one/all.jsonl","w") as f:
    for d in docs: f.write(json.dumps(d)+"\n")
