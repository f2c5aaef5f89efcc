package api

import "strings"

// routeIndex finds the routes a request path may match without walking the
// whole table (issue 20: the walk, a pathMatches per route, was the largest
// part of the guard's cost on GET /calls). A route without parameters
// matches only its own path; one with parameters only paths with as many
// segments as its pattern ({id} is one non-empty segment, pathMatches). The
// index gives those candidates, in table order; pathMatches still decides.
type routeIndex struct {
	static map[string][]int // routes without parameters, by path
	params [][]int          // routes with parameters, by the number of '/' in the path
}

func newRouteIndex(table []route) routeIndex {
	x := routeIndex{static: map[string][]int{}}
	for i, r := range table {
		if strings.Contains(r.path, "{") {
			n := strings.Count(r.path, "/")
			for len(x.params) <= n {
				x.params = append(x.params, nil)
			}
			x.params[n] = append(x.params[n], i)
		} else {
			x.static[r.path] = append(x.static[r.path], i)
		}
	}
	return x
}

// candidates are the indexes of the routes that may match path: those
// without parameters and those with, each list in table order.
func (x *routeIndex) candidates(path string) (static, params []int) {
	if len(path) > 1 {
		path = strings.TrimSuffix(path, "/") // as pathMatches
	}
	if n := strings.Count(path, "/"); n < len(x.params) {
		return x.static[path], x.params[n]
	}
	return x.static[path], nil
}
