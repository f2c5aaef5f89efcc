// Package views holds the templ components of the phone pages: the layout
// and navigation, the phone page and its live fragments, contacts, history and
// settings. Views take plain value types (view models declared here and store
// types) and never call into the phone or the store.
package views
