<%! K = 21 %><%def name="f(a=K * 2)">${a}</%def>${f()} ${f(1)}
