package views

import (
	"sort"
	"strconv"
	"time"
)

// chartOutcomes are stacked bottom to top in this order.
var chartOutcomes = []string{"answered", "missed", "declined", "failed"}

type bar struct {
	X, Y, W, H int
	Outcome    string
	Label      string // for screen readers and the tooltip
}

type chartModel struct {
	W, H   int
	Bars   []bar
	Ticks  []tick
	Max    int
	Empty  bool
	Totals []dayTotal
}

type tick struct {
	X    int
	Text string
}

type dayTotal struct {
	Day    string
	Counts map[string]int
}

const chartDays = 28

// buildChart lays out a stacked bar per day over the last four weeks.
func buildChart(l L, counts []DayCount, today time.Time) chartModel {
	per := map[string]map[string]int{}
	for _, c := range counts {
		if per[c.Day] == nil {
			per[c.Day] = map[string]int{}
		}
		per[c.Day][c.Outcome] += c.N
	}
	m := chartModel{W: 560, H: 160}
	const top, bottom, left = 10, 20, 24
	plotH := m.H - top - bottom
	bw := (m.W - left) / chartDays
	days := make([]string, 0, chartDays)
	for i := chartDays - 1; i >= 0; i-- {
		days = append(days, today.AddDate(0, 0, -i).Format("2006-01-02"))
	}
	for _, d := range days {
		n := 0
		for _, v := range per[d] {
			n += v
		}
		m.Max = max(m.Max, n)
	}
	m.Empty = m.Max == 0
	scale := max(m.Max, 1)
	for i, d := range days {
		x := left + i*bw
		y := top + plotH
		for _, o := range chartOutcomes {
			n := per[d][o]
			if n == 0 {
				continue
			}
			h := n * plotH / scale
			if h < 2 {
				h = 2
			}
			y -= h
			m.Bars = append(m.Bars, bar{X: x + 1, Y: y, W: bw - 2, H: h, Outcome: o,
				Label: d + ": " + strconv.Itoa(n) + " " + l.T("outcome."+o)})
		}
		if i%7 == 0 || i == chartDays-1 {
			m.Ticks = append(m.Ticks, tick{X: x, Text: d[5:]})
		}
		if len(per[d]) > 0 {
			m.Totals = append(m.Totals, dayTotal{Day: d, Counts: per[d]})
		}
	}
	sort.Slice(m.Totals, func(i, j int) bool { return m.Totals[i].Day > m.Totals[j].Day })
	return m
}
