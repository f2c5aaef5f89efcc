package web

import (
	"bytes"
	"strings"
	"testing"

	"github.com/softphone/softphone/store"
)

func TestVCardAndCSVRoundTrip(t *testing.T) {
	in := []store.Contact{
		{Name: "Bob, the; Builder\\", Number: "+4930123", AccountID: "a1"},
		{Name: "=cmd|' /C calc'!A0", Number: "sip:carol@pbx.test"},
	}
	var v, c bytes.Buffer
	if err := writeVCards(&v, in); err != nil {
		t.Fatal(err)
	}
	if err := writeCSV(&c, in); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(c.String(), "\n=cmd") {
		t.Fatal("a formula reached the CSV unescaped")
	}
	fromV, err := readVCards(&v)
	if err != nil {
		t.Fatal(err)
	}
	fromC, err := readCSV(&c)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range in {
		if fromV[i] != want {
			t.Errorf("vCard %d: %+v want %+v", i, fromV[i], want)
		}
		if fromC[i] != want {
			t.Errorf("CSV %d: %+v want %+v", i, fromC[i], want)
		}
	}
}

func TestReadVCardsOfOtherPrograms(t *testing.T) {
	// vCard 3.0 with folding, groups, N without FN, TEL parameters.
	in := "BEGIN:VCARD\r\nVERSION:3.0\r\nN:Doe;Jane;;;\r\nitem1.TEL;TYPE=CELL:+49 171\r\n 234567\r\nEND:VCARD\r\n" +
		"BEGIN:VCARD\r\nVERSION:2.1\r\nFN:No Number\r\nEND:VCARD\r\n"
	got, err := readVCards(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Name != "Jane Doe" || got[0].Number != "+49171234567" {
		t.Fatalf("%+v", got)
	}
	if _, err := readVCards(strings.NewReader("hello")); err == nil {
		t.Fatal("no error for a file without contacts")
	}
	got, err = readCSV(strings.NewReader("\ufeffName;x\nTelephone\n")) // no name/number columns
	if err == nil {
		t.Fatalf("bad CSV read as %+v", got)
	}
	got, err = readCSV(strings.NewReader("Alice,030 123\nBob,\n"))
	if err != nil || len(got) != 1 || got[0].Number != "030123" {
		t.Fatalf("headerless CSV: %+v %v", got, err)
	}
}

func FuzzReadVCards(f *testing.F) {
	f.Add("BEGIN:VCARD\r\nFN:A\r\nTEL:1\r\nEND:VCARD\r\n")
	f.Add("BEGIN:VCARD\nN:;;\nTEL;VALUE=uri:tel:+1\n X\nX-SOFTPHONE-ACCOUNT:\\;\nEND:VCARD")
	f.Fuzz(func(t *testing.T, s string) {
		cs, err := readVCards(strings.NewReader(s))
		if err == nil && len(cs) == 0 {
			t.Fatal("no error and no contacts")
		}
		for _, c := range cs {
			if c.Number == "" {
				t.Fatal("contact without number")
			}
		}
	})
}

func FuzzReadCSV(f *testing.F) {
	f.Add("name,number,account_id\nA,1,\n")
	f.Add("Name,Phone\n\"B, C\",+49 (30) 1\n")
	f.Fuzz(func(t *testing.T, s string) {
		cs, err := readCSV(strings.NewReader(s))
		if err == nil && len(cs) == 0 {
			t.Fatal("no error and no contacts")
		}
	})
}
