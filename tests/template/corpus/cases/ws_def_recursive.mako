<%def name="count(k)">${k}${count(k - 1) if k > 0 else ""}</%def>
${count(3)}
