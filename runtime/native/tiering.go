package native

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/labgen/labgen/runtime/labdir"
)

// EnsureTiering starts the Fluss tiering job unless it runs, as compose's
// one-shot tiering service does. A lab without Fluss has none.
func EnsureTiering(ctx context.Context, lab *labdir.Lab, restURL string, progress func(string)) error {
	if lab.Lab.Stack.Fluss == nil || lab.Lab.Stack.Flink == nil {
		return nil
	}
	lay, err := NewLayout(lab.Dir)
	if err != nil {
		return err
	}
	cp, err := Resolve(ctx, lab, nil)
	if err != nil {
		return err
	}
	id, err := SubmitTiering(ctx, restURL, cp.TieringJar, TieringArgs(lay, PortsOf(lab)))
	if err != nil {
		return fmt.Errorf("the Fluss tiering job: %w", err)
	}
	if progress != nil {
		progress(fmt.Sprintf("the Fluss tiering job runs (%s)", id))
	}
	return nil
}

// Names of the tiering job: flink-jobs.sh sets pipeline.name; the job's
// own default otherwise.
const (
	TieringJobName        = "fluss-tiering"
	tieringDefaultJobName = "Fluss Lake Tiering Service - paimon"
)

// SubmitTiering starts the Fluss tiering job through the Flink REST API
// (POST /jars/upload, then POST /jars/<id>/run), as flink-jobs.sh's
// `flink run -d -Dpipeline.name=fluss-tiering` does, unless a job of
// either of its names is active; then jobID is that job's.
func SubmitTiering(ctx context.Context, restURL, jar string, args []string) (jobID string, err error) {
	restURL = strings.TrimRight(restURL, "/")
	if id, ok, err := activeJob(ctx, restURL, TieringJobName, tieringDefaultJobName); err != nil {
		return "", err
	} else if ok {
		return id, nil
	}
	jarID, err := uploadJar(ctx, restURL, jar)
	if err != nil {
		return "", err
	}
	// JarRunRequestBody: programArgsList keeps arguments with spaces
	// whole; flinkConfiguration (Flink 1.17+) carries pipeline.name.
	body, _ := json.Marshal(map[string]any{
		"programArgsList":    args,
		"flinkConfiguration": map[string]string{"pipeline.name": TieringJobName},
	})
	var run struct {
		JobID string `json:"jobid"`
	}
	if err := restJSON(ctx, http.MethodPost, restURL+"/jars/"+jarID+"/run", "application/json", bytes.NewReader(body), &run); err != nil {
		return "", fmt.Errorf("running the tiering job: %w", err)
	}
	if run.JobID == "" {
		return "", fmt.Errorf("running the tiering job: Flink answered no job id")
	}
	return run.JobID, nil
}

// activeJob finds a job of one of the names that has not ended.
func activeJob(ctx context.Context, restURL string, names ...string) (string, bool, error) {
	var o struct {
		Jobs []struct {
			ID    string `json:"jid"`
			Name  string `json:"name"`
			State string `json:"state"`
		} `json:"jobs"`
	}
	if err := restJSON(ctx, http.MethodGet, restURL+"/jobs/overview", "", nil, &o); err != nil {
		return "", false, err
	}
	for _, j := range o.Jobs {
		switch j.State {
		case "FINISHED", "FAILED", "CANCELED", "SUSPENDED":
			continue
		}
		for _, n := range names {
			if j.Name == n {
				return j.ID, true, nil
			}
		}
	}
	return "", false, nil
}

// uploadJar posts the jar as the multipart field "jarfile"; Flink answers
// {"filename": ".../flink-web-upload/<uuid>_<name>.jar", "status":
// "success"} and the jar's id is the file name's base.
func uploadJar(ctx context.Context, restURL, jar string) (string, error) {
	f, err := os.Open(jar)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	h := make(textproto.MIMEHeader)
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="jarfile"; filename=%q`, filepath.Base(jar)))
	h.Set("Content-Type", "application/x-java-archive")
	part, err := mw.CreatePart(h)
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(part, f); err != nil {
		return "", err
	}
	if err := mw.Close(); err != nil {
		return "", err
	}
	var up struct {
		Filename string `json:"filename"`
		Status   string `json:"status"`
	}
	if err := restJSON(ctx, http.MethodPost, restURL+"/jars/upload", mw.FormDataContentType(), &buf, &up); err != nil {
		return "", fmt.Errorf("uploading %s: %w", filepath.Base(jar), err)
	}
	if up.Status != "success" || up.Filename == "" {
		return "", fmt.Errorf("uploading %s: Flink answered status %q", filepath.Base(jar), up.Status)
	}
	return path.Base(up.Filename), nil
}

// restJSON does one REST call; Flink's errors ({"errors": [...]}) come back
// verbatim.
func restJSON(ctx context.Context, method, url, contentType string, body io.Reader, out any) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		var e struct {
			Errors []string `json:"errors"`
		}
		if json.Unmarshal(b, &e) == nil && len(e.Errors) > 0 {
			return fmt.Errorf("%s %s: %s: %s", method, url, resp.Status, strings.Join(e.Errors, "; "))
		}
		return fmt.Errorf("%s %s: %s: %s", method, url, resp.Status, mavenTail(string(b), 10))
	}
	return json.Unmarshal(b, out)
}
