${sorted(k for k in context.kwargs)[:3]}
