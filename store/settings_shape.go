package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

var settingsType = reflect.TypeFor[Settings]()

// checkShape walks a decoded JSON value (numbers as json.Number) along the
// Go type it will be decoded into, and reports the first unknown key or
// wrong type with its dotted key path, e.g. `api.port: must be a whole
// number, got "8377"`. Keys match exactly (encoding/json alone would accept
// "API" for "api" and name no path for an unknown key).
func checkShape(path string, v any, t reflect.Type) error {
	if v == nil {
		return nil // null leaves the default
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			return shapeErr(path, "must be an object", v)
		}
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			val := obj[k]
			f, ok := jsonField(t, k)
			if !ok {
				return &FieldError{Key: join(path, k), Msg: "unknown key"}
			}
			if err := checkShape(join(path, k), val, f.Type); err != nil {
				return err
			}
		}
	case reflect.Slice:
		arr, ok := v.([]any)
		if !ok {
			return shapeErr(path, "must be a list", v)
		}
		for i, el := range arr {
			if err := checkShape(fmt.Sprintf("%s[%d]", path, i), el, t.Elem()); err != nil {
				return err
			}
		}
	case reflect.String:
		if _, ok := v.(string); !ok {
			return shapeErr(path, "must be a string", v)
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			return shapeErr(path, "must be true or false", v)
		}
	case reflect.Int, reflect.Int64, reflect.Int32:
		n, ok := v.(json.Number)
		if !ok {
			return shapeErr(path, "must be a whole number", v)
		}
		if _, err := strconv.ParseInt(string(n), 10, t.Bits()); err != nil {
			if errors.Is(err, strconv.ErrRange) {
				return shapeErr(path, "is out of range", v)
			}
			return shapeErr(path, "must be a whole number", v)
		}
	case reflect.Float64, reflect.Float32:
		if _, ok := v.(json.Number); !ok {
			return shapeErr(path, "must be a number", v)
		}
	default:
		return &FieldError{Key: path, Msg: "cannot be read (type " + t.String() + ")"}
	}
	return nil
}

// jsonField finds the field of struct type t whose JSON name is exactly k.
func jsonField(t reflect.Type, k string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if name == k {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

func shapeErr(path, msg string, v any) error {
	return &FieldError{Key: path, Msg: fmt.Sprintf("%s, got %s", msg, jsonValue(v))}
}

// jsonValue shows a value briefly: strings quoted and cut, objects and lists by kind.
func jsonValue(v any) string {
	switch x := v.(type) {
	case string:
		if len(x) > 40 {
			x = x[:40] + "..."
		}
		return strconv.Quote(x)
	case json.Number:
		return string(x)
	case bool:
		return strconv.FormatBool(x)
	}
	return jsonKind(v)
}

func jsonKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

// syntaxError names the line and column of a JSON syntax error.
func syntaxError(b []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("%s: not valid JSON: %w", position(b, se.Offset), err)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return fmt.Errorf("%s: not valid JSON: the file ends too early", position(b, int64(len(b))))
	}
	return fmt.Errorf("not valid JSON: %w", err)
}

func position(b []byte, off int64) string {
	off = min(max(off, 0), int64(len(b)))
	line, col := 1, 1
	for _, c := range b[:off] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Sprintf("line %d, column %d", line, col)
}
