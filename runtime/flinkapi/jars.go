package flinkapi

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/textproto"
	"os"
	"path"
	"path/filepath"
)

// UploadJar posts a jar to the cluster (POST /jars/upload, the multipart
// field "jarfile") and returns its id for RunJar. Flink answers
// {"filename": ".../flink-web-upload/<uuid>_<name>.jar", "status":
// "success"}; the id is the file name's base.
func (c *Client) UploadJar(ctx context.Context, jar string) (string, error) {
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
	if err := c.send(ctx, "POST", c.REST, "/jars/upload", mw.FormDataContentType(), &buf, &up); err != nil {
		return "", fmt.Errorf("uploading %s: %w", filepath.Base(jar), err)
	}
	if up.Status != "success" || up.Filename == "" {
		return "", fmt.Errorf("uploading %s: Flink answered status %q", filepath.Base(jar), up.Status)
	}
	return path.Base(up.Filename), nil
}

// RunJar runs an uploaded jar's main class (POST /jars/<id>/run) with its
// arguments and job configuration, and returns the job's id.
// programArgsList keeps arguments with spaces whole; flinkConfiguration
// (Flink 1.17+) carries settings such as pipeline.name.
func (c *Client) RunJar(ctx context.Context, jarID string, args []string, conf map[string]string) (string, error) {
	var run struct {
		JobID string `json:"jobid"`
	}
	body := map[string]any{"programArgsList": args, "flinkConfiguration": conf}
	if err := c.do(ctx, "POST", c.REST, "/jars/"+pathEscape(jarID)+"/run", body, &run); err != nil {
		return "", err
	}
	if run.JobID == "" {
		return "", fmt.Errorf("running %s: Flink answered no job id", jarID)
	}
	return run.JobID, nil
}
