<%page args="n, k=3, label='x'"/>
${label}: n=${n} k=${k}
