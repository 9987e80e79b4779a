${"ab" | twice, trim}
