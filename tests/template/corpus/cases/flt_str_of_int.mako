${n | h} ${n | trim}
