${"{!r} {!s}".format("a", "b")}
