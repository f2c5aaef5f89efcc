package testpeer

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// GetJSON fetches url and decodes its JSON answer into v; an answer other
// than 200 is an error naming the status.
func GetJSON(url string, v any) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}
