import csv,collections,sys,statistics as st
for f in sys.argv[1:]:
    rows=[r for r in csv.reader(open(f)) if r and not r[0].startswith('#') and r[0]!='ms']
    print(f, len(rows))
    sols=sorted(set(r[1] for r in rows),key=lambda s:(s!='Default',s))
    by=collections.defaultdict(lambda: collections.defaultdict(list))
    clk=collections.defaultdict(list); pw=collections.defaultdict(list)
    for r in rows:
        sec=int(float(r[0])//1000)
        by[sec][r[1]].append(float(r[3]))
        if r[5]: clk[sec].append(int(r[5]))
        if r[6]: pw[sec].append(float(r[6]))
    print('sec clk pw '+' | '.join(s[22:60] if s!='Default' else 'Default' for s in sols))
    for sec in sorted(by):
        if not by[sec]['Default']: continue
        d=st.median(by[sec]['Default'])
        print(sec, int(st.mean(clk[sec])), int(st.mean(pw[sec])), ' '.join(f"{st.median(by[sec][s]):.1f}({d/st.median(by[sec][s]):.3f})" if by[sec][s] else '-' for s in sols))
