package metrics

// Value reads the current value of the counter named name (0 when there is no
// such counter). Tests and the status page use it; Prometheus scrapes Handler.
func (m *Metrics) Value(name string) float64 {
	fams, err := m.reg.Gather()
	if err != nil {
		return 0
	}
	for _, f := range fams {
		if f.GetName() == name && len(f.GetMetric()) > 0 {
			return f.GetMetric()[0].GetCounter().GetValue()
		}
	}
	return 0
}
