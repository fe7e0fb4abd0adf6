package store

// walFrames is for tests: how many frames of the current cycle the store has applied.
func (s *Store) walFrames() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, b := 0, s.wal.seen
	if len(b) < walHeaderSize {
		return 0
	}
	h, _, _ := parseWALHeader(b)
	for b = b[h.size():]; ; n++ {
		_, _, _, size, ok := nextFrame(s.wal.key, b)
		if !ok {
			return n
		}
		b = b[size:]
	}
}
