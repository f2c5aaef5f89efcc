package audio

type conference struct{}

func (c *conference) push(s *Session, pcm []int16) {}
func (c *conference) leave(s *Session)             {}
