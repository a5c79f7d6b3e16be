"""The web page of `onyx serve` in headless Chromium (Debian's chromium + chromium-driver, python3-selenium).

Starts `onyx serve` on a repository holding the face detector that ships in models/ (and ../shared's text-direction
classifier when it is there), loads the page at /, and checks that the models, their inputs and the graph picture
appear; runs the face detector on an image through the form and checks the page's result text against the server's
answer (REST) to the same tensor; runs both models on their reference inputs as JSON tensors and checks the text
against ONNX Runtime's outputs (the models' test_data_set_0); checks the live metrics; saves a screenshot as a test
artifact. Then a token-protected server: the page asks for the token, refuses a wrong one, works with the right one.
Exits 77 (skipped) when Chromium, its driver or Selenium is missing.

usage: web_page_test.py ONYX_BINARY [ARTIFACT_DIR]
"""
import base64
import json
import os
import re
import shutil
import struct
import sys
import tempfile
import urllib.error
import urllib.request
import zlib

import numpy as np
from onnx import load_tensor, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serve_harness  # noqa: E402
from serve_harness import Checks  # noqa: E402

ONYX = os.path.abspath(sys.argv[1])
ARTIFACTS = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else os.getcwd())
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FACE = os.path.join(ROOT, "models", "blazeface")
CLS_MODEL = os.path.join(ROOT, "..", "shared", "models", "onnx", "ch_ppocr_mobile_v2.0_cls_infer.onnx")
CLS_DATA = os.path.join(ROOT, "..", "shared", "models", "onnx", "testdata", "ch_ppocr_mobile_v2.0_cls_infer",
                        "test_data_set_0")
CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")
try:
    from selenium import webdriver
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait
except ImportError:
    webdriver = None
if not CHROMIUM or not DRIVER or webdriver is None:
    print("skip: needs chromium, chromium-driver and python3-selenium (Debian packages)")
    sys.exit(77)

checks = Checks()
check, failures = checks.check, checks.failures


def request(url, body=None, headers=None):
    """Returns (status, headers, body bytes)."""
    req = urllib.request.Request(url, data=body, headers=headers or {}, method="POST" if body is not None else "GET")
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def start_server(*args):
    proc, base, _ = serve_harness.start_server([ONYX, "serve", *args, "--port", "0", "--quiet"])
    return proc, base


def stop_server(proc):
    serve_harness.stop_server(proc)


def write_png(path, rgb):
    """An 8-bit RGB PNG with no colour-space chunks (so the browser takes it as sRGB and copies its pixels)."""
    h, w, _ = rgb.shape
    raw = b"".join(b"\x00" + rgb[y].tobytes() for y in range(h))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) +
                chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def test_image(h, w):
    """A smooth, face-sized pattern: a bright disc on a gradient."""
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    disc = ((y - h / 2) ** 2 + (x - w / 2) ** 2) < (min(h, w) / 3) ** 2
    img = np.stack([x / w * 200 + 30 * disc, y / h * 180 + 50 * disc, (x + y) / (w + h) * 120 + 60 * disc], -1)
    return np.clip(img, 0, 255).astype(np.uint8)


def rest_infer(base, model, name, x, headers=None):
    body = json.dumps({"inputs": [{"name": name, "shape": list(x.shape), "datatype": "FP32",
                                   "data": x.ravel().tolist()}]}).encode()
    status, _, answer = request(f"{base}/v2/models/{model}/infer", body,
                                {"Content-Type": "application/json", **(headers or {})})
    assert status == 200, answer
    return {o["name"]: np.array(o["data"], np.float32).reshape(o["shape"]) for o in json.loads(answer)["outputs"]}


NUMBER = r"(-?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?|NaN|-?inf)"


def page_outputs(driver):
    """{output name: {"shape", "min", "max", "mean", "first", "top"}} parsed from the result's text."""
    found = {}
    for box in driver.find_elements(By.CSS_SELECTOR, "#result .output"):
        text = box.text
        entry = {"text": text}
        m = re.search(r"^(\w+) \[([\d, ]*)\]$", text, re.M)
        entry["shape"] = [int(d) for d in m.group(2).split(",")] if m and m.group(2) else []
        m = re.search(rf"min {NUMBER} max {NUMBER} mean {NUMBER}", text)
        if m:
            entry["min"], entry["max"], entry["mean"] = (float(v) for v in m.groups())
        m = re.search(r"first values: (.*)$", text, re.M)
        entry["first"] = [float(v) for v in re.findall(NUMBER, m.group(1))] if m else []
        cells = [r.find_elements(By.TAG_NAME, "td") for r in box.find_elements(By.CSS_SELECTOR, "table.topk tr")]
        entry["top"] = [(int(c[0].text), float(c[1].text)) for c in cells if c]
        found[box.get_attribute("data-name")] = entry
    return found


def close(got, want, rtol, atol):
    return abs(got - want) <= atol + rtol * abs(want)


def summary_matches(entry, ref, rtol, atol):
    """The page's min/max/mean/first values against a reference array (the page shows 6 significant digits)."""
    flat = ref.astype(np.float64).ravel()
    return (entry.get("shape") == list(ref.shape) and "min" in entry
            and close(entry["min"], flat.min(), rtol, atol) and close(entry["max"], flat.max(), rtol, atol)
            and close(entry["mean"], flat.mean(), rtol, atol) and len(entry["first"]) == min(8, flat.size)
            and all(close(g, w, rtol, atol) for g, w in zip(entry["first"], flat[:8])))


def new_driver():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1300",
                "--no-first-run", "--disable-extensions"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(DRIVER), options=options)


def wait(driver, what, condition, timeout=60):
    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.1).until(lambda d: condition(d))
    except TimeoutException:
        check(False, what + " (timed out; status: " + driver.find_element(By.ID, "status").text + "; metrics: " +
              str(rows_of(driver, "#metrics")) + ")")
        return None


def rows_of(driver, table):
    """{(model, version): the row's text} of the models or metrics table, read at once (the page replaces rows)."""
    return {(m, v): t for m, v, t in driver.execute_script(
        "return [...document.querySelectorAll(arguments[0] + ' tbody tr')]"
        ".map((r) => [r.dataset.model, r.dataset.version, r.innerText.replace(/\\s+/g, ' ').trim()]);", table)}


def model_rows(driver):
    return rows_of(driver, "#models")


def select_model(driver, name):
    driver.find_element(By.CSS_SELECTOR, f'#models tbody tr[data-model="{name}"]').click()
    wait(driver, f"model {name} shown", lambda d: d.find_element(By.ID, "model-title").text.startswith(name + ","))


def graph_shown(driver):
    return driver.execute_script("const g = document.getElementById('graph');"
                                 "return g.complete && g.naturalWidth > 0 && g.src.startsWith('blob:');")


def run_form(driver):
    """Submits the run form and waits for its answer; returns the result box's text."""
    done = driver.find_element(By.ID, "result").get_attribute("data-done") or "0"
    driver.find_element(By.ID, "run").click()
    wait(driver, "the run answers",
         lambda d: (d.find_element(By.ID, "result").get_attribute("data-done") or "0") != done
         or d.find_elements(By.CSS_SELECTOR, "#result .error"))
    errors = driver.find_elements(By.CSS_SELECTOR, "#result .error")
    if errors:
        check(False, "the run failed on the page: " + errors[0].text)
    return driver.find_element(By.ID, "result").text


def set_json(driver, array):
    driver.find_element(By.CSS_SELECTOR, 'input[name=mode][value=json]').click()
    driver.execute_script("document.getElementById('json-text').value = arguments[0];", json.dumps(array.tolist()))


def set_image(driver, path):
    driver.find_element(By.CSS_SELECTOR, 'input[name=mode][value=image]').click()
    driver.find_element(By.ID, "image-file").send_keys(path)


def full_page_screenshot(driver, path):
    """The whole page, beyond the window (Chrome DevTools' Page.captureScreenshot)."""
    size = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}})
    with open(path, "wb") as f:
        f.write(base64.b64decode(shot["data"]))


def console_errors(driver):
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


tmp = tempfile.mkdtemp(prefix="onyx-web-test-")
os.makedirs(ARTIFACTS, exist_ok=True)
repo = os.path.join(tmp, "repo")
os.makedirs(os.path.join(repo, "face", "1"))
shutil.copy(os.path.join(FACE, "model.onnx"), os.path.join(repo, "face", "1", "model.onnx"))
have_cls = os.path.exists(CLS_MODEL) and os.path.isdir(CLS_DATA)
if have_cls:
    os.makedirs(os.path.join(repo, "cls", "1"))
    shutil.copy(CLS_MODEL, os.path.join(repo, "cls", "1", "model.onnx"))
else:
    print("note: ../shared's classifier is missing: the top-k checks are left out")
os.makedirs(os.path.join(repo, "broken", "1"))
with open(os.path.join(repo, "broken", "1", "model.onnx"), "wb") as f:
    f.write(b"not a model")
face_png = os.path.join(tmp, "face.png")
face_rgb = test_image(128, 128)
write_png(face_png, face_rgb)
wide_png = os.path.join(tmp, "wide.png")
write_png(wide_png, test_image(100, 300))
face_x = numpy_helper.to_array(load_tensor(os.path.join(FACE, "test_data_set_0", "input_0.pb")))
face_ref = [numpy_helper.to_array(load_tensor(os.path.join(FACE, "test_data_set_0", f"output_{i}.pb")))
            for i in range(4)]
FACE_OUT = ["Identity:0", "Identity_1:0", "Identity_2:0", "Identity_3:0"]

driver = new_driver()
proc, base = start_server("--model-repository", repo)
try:
    # The static files, over plain HTTP.
    status, headers, body = request(base + "/")
    check(status == 200 and headers["Content-Type"].startswith("text/html") and b"/ui/app.js" in body
          and headers["Cache-Control"] == "no-cache" and "script-src 'self'" in headers["Content-Security-Policy"],
          "GET / is the page (text/html, no-cache, a content security policy)")
    status2, _, _ = request(base + "/", headers={"If-None-Match": headers["ETag"]})
    check(status2 == 304, "GET / with its ETag is 304 Not Modified")
    status, headers, body = request(base + "/ui/app.js")
    check(status == 200 and headers["Content-Type"].startswith("text/javascript") and b"sessionStorage" in body,
          "GET /ui/app.js is the script (text/javascript)")
    status, _, body = request(base + "/ui/style.css")
    check(status == 200 and b"#graph" in body, "GET /ui/style.css")
    status, _, body = request(base + "/ui/nothing.js")
    check(status == 404 and b"nothing.js" in body, "an unknown /ui/ file is 404")
    status, headers, svg = request(base + "/v2/models/face/graph.svg")
    check(status == 200 and headers["Content-Type"] == "image/svg+xml" and b"<svg" in svg and b"Conv" in svg
          and b"input:0" in svg, "GET /v2/models/face/graph.svg is the graph's SVG (Conv nodes, the input)")
    status, _, svg1 = request(base + "/v2/models/face/versions/1/graph.svg")
    check(status == 200 and svg1 == svg, "the versioned graph.svg route gives the same (cached) picture")
    status, _, body = request(base + "/v2/models/nope/graph.svg")
    check(status == 404 and b"nope" in body, "graph.svg of an unknown model is 404 naming it")

    # The page: models, inputs, graph.
    driver.get(base + "/")
    wait(driver, "the models appear", lambda d: len(model_rows(d)) == (3 if have_cls else 2))
    rows = model_rows(driver)
    check("UNAVAILABLE" in rows.get(("broken", "1"), "") and "not a valid ONNX model" in rows[("broken", "1")],
          "the model list shows the broken model UNAVAILABLE with the reason: " + rows.get(("broken", "1"), ""))
    check(("face", "1") in rows and "READY" in rows[("face", "1")], "the model list shows face, version 1, READY")
    if have_cls:
        check(("cls", "1") in rows and "READY" in rows[("cls", "1")], "the model list shows cls, version 1, READY")
    select_model(driver, "face")
    inputs = driver.find_element(By.ID, "inputs").text
    check("input:0 FP32 [1, 128, 128, 3]" in inputs, "the inputs table shows input:0 FP32 [1, 128, 128, 3]")
    outputs = driver.find_element(By.ID, "outputs").text
    check(all(name in outputs for name in FACE_OUT), "the outputs table names the four outputs")
    wait(driver, "the graph picture is shown", graph_shown)
    check(driver.execute_script("return document.getElementById('graph').naturalHeight") > 500,
          "the graph picture is a tall drawing")
    check(driver.find_element(By.ID, "layout").get_attribute("value") == "NHWC",
          "the layout is NHWC, from the shape")
    check(driver.find_element(By.ID, "height").get_attribute("value") == "128"
          and driver.find_element(By.ID, "width").get_attribute("value") == "128"
          and not driver.find_element(By.ID, "height").is_enabled(), "height and width come from the shape (128)")

    # An image through the form (binary FP32), against the server's answer to the same tensor.
    set_image(driver, face_png)
    Select(driver.find_element(By.ID, "scale")).select_by_value("signed")
    text = run_form(driver)
    got = page_outputs(driver)
    check(text.startswith("face version 1: 4 outputs"), "the result names the model and the outputs: " +
          text.splitlines()[0])
    # As the page computes it: (v - 127.5) / 127.5 in doubles, stored as float32 (so the two tensors are equal).
    x = ((face_rgb.astype(np.float64) - 127.5) / 127.5).astype(np.float32)[None]
    want = rest_infer(base, "face", "input:0", x)
    for name in FACE_OUT:
        check(name in got and summary_matches(got[name], want[name], 1e-5, 1e-6),
              f"image run: {name}'s shape, min, max, mean and first values match the REST answer "
              f"({got.get(name, {}).get('text', '').splitlines()[1:3]})")
    check(driver.execute_script("const c = document.getElementById('preview'); return [c.width, c.height];")
          == [128, 128], "the preview canvas is the input's size")
    # The page's run and the REST check: two requests.
    wait(driver, "the metrics table shows face's first requests",
         lambda d: rows_of(d, "#metrics").get(("face", "1"), "").startswith("face 1 2 0"), timeout=15)
    shot = os.path.join(ARTIFACTS, "serve_web_page.png")
    full_page_screenshot(driver, shot)
    check(os.path.getsize(shot) > 10000, "screenshot saved: " + shot)

    # The same image as JSON gives the same text.
    Select(driver.find_element(By.ID, "encoding")).select_by_value("json")
    run_form(driver)
    got_json = page_outputs(driver)
    check(got_json.keys() == got.keys() and all(got_json[k]["text"] == got[k]["text"] for k in got),
          "the image sent as JSON gives the same result")

    # A tensor of the wrong size: the server's error shows on the page.
    set_json(driver, np.zeros(5, np.float32))
    driver.find_element(By.ID, "run").click()
    wait(driver, "a bad tensor's error is shown", lambda d: d.find_elements(By.CSS_SELECTOR, "#result .error"))
    error = driver.find_element(By.CSS_SELECTOR, "#result .error").text
    check("input:0" in error, "a 5-value tensor for input:0 shows the server's error naming it: " + error)
    errors = console_errors(driver)  # reading the log empties it: this step's 400 is expected
    check(len(errors) == 1 and "400" in errors[0], "the browser saw the one 400: " + "; ".join(errors))

    # The reference input as a JSON tensor, against ONNX Runtime's outputs.
    set_json(driver, face_x)
    run_form(driver)
    got = page_outputs(driver)
    for name, ref in zip(FACE_OUT, face_ref):
        check(name in got and summary_matches(got[name], ref, 1e-4, 1e-4),
              f"JSON run: {name} matches ONNX Runtime's output")

    if have_cls:
        cls_x = numpy_helper.to_array(load_tensor(os.path.join(CLS_DATA, "input_0.pb")))
        cls_ref = numpy_helper.to_array(load_tensor(os.path.join(CLS_DATA, "output_0.pb")))
        select_model(driver, "cls")
        wait(driver, "the classifier's graph is shown", graph_shown)
        check(driver.find_element(By.ID, "layout").get_attribute("value") == "NCHW",
              "the classifier's layout is NCHW")
        check(driver.find_element(By.ID, "height").is_enabled(), "its dynamic height is editable")
        set_json(driver, cls_x)
        run_form(driver)
        got = page_outputs(driver)
        top = next(iter(got.values()))["top"] if got else []
        order = np.argsort(-cls_ref.ravel())
        check(len(top) == 2 and [i for i, _ in top] == order.tolist()
              and all(close(s, cls_ref.ravel()[i], 1e-4, 1e-4) for i, s in top),
              f"the classifier's top-k (index, score) match ONNX Runtime's: {top} vs {cls_ref.ravel().tolist()}")
        # An image of another size, resized to the height and width given.
        set_image(driver, wide_png)
        Select(driver.find_element(By.ID, "scale")).select_by_value("signed")
        for field, value in (("height", "48"), ("width", "192")):
            driver.find_element(By.ID, field).clear()
            driver.find_element(By.ID, field).send_keys(value)
        run_form(driver)
        got = page_outputs(driver)
        top = next(iter(got.values()))["top"] if got else []
        check(driver.execute_script("const c = document.getElementById('preview'); return [c.width, c.height];")
              == [192, 48] and len(top) == 2 and abs(sum(s for _, s in top) - 1) < 1e-4,
              f"a 300x100 image resized to 192x48 gives two softmax scores: {top}")

    # Live metrics: the page's table follows /metrics.
    _, _, metrics = request(base + "/metrics")
    counts = [int(m.group(1)) if m else -1 for m in (
        re.search(rf'onyx_inference_requests_total\{{model="face",version="1",status="{outcome}"\}} (\d+)',
                  metrics.decode()) for outcome in ("success", "failure"))]
    wait(driver, "the metrics table shows face's requests",
         lambda d: rows_of(d, "#metrics").get(("face", "1"), "").startswith(f"face 1 {counts[0]} {counts[1]}"),
         timeout=15)
    row = rows_of(driver, "#metrics").get(("face", "1"), "")
    check(counts == [4, 1] and re.search(r" ms .* ms$", row),
          f"metrics: face answered 4 requests and refused 1, with mean latency and compute times ({row})")
    errors = console_errors(driver)
    check(not errors, "no errors in the browser console (content security policy included): " + "; ".join(errors))
finally:
    stop_server(proc)

# A server with a token: the page asks for it.
token_file = os.path.join(tmp, "token")
with open(token_file, "w") as f:
    f.write("s3cret-token\n")
proc, base = start_server(os.path.join(FACE, "model.onnx"), "--name", "blazeface", "--auth-token-file", token_file)
try:
    status, _, _ = request(base + "/")
    status_js, _, _ = request(base + "/ui/app.js")
    status_api, _, _ = request(base + "/v2/models/blazeface")
    status_svg, _, _ = request(base + "/v2/models/blazeface/graph.svg")
    check(status == 200 and status_js == 200 and status_api == 401 and status_svg == 401,
          "with a token: the page's files are public, the API and the graph picture are not")
    driver.get(base + "/")
    wait(driver, "the page asks for the token", lambda d: d.find_element(By.ID, "auth").is_displayed())
    driver.find_element(By.ID, "token").send_keys("wrong")
    driver.find_element(By.CSS_SELECTOR, "#auth-form button").click()
    wait(driver, "a wrong token is refused",
         lambda d: "refused" in d.find_element(By.ID, "auth-error").text
         and d.find_element(By.ID, "auth").is_displayed())
    driver.find_element(By.ID, "token").send_keys("s3cret-token")
    driver.find_element(By.CSS_SELECTOR, "#auth-form button").click()
    wait(driver, "with the token the models appear", lambda d: ("blazeface", "1") in model_rows(d))
    check(not driver.find_element(By.ID, "auth").is_displayed(), "the token form is gone")
    wait(driver, "with the token the graph picture is shown", graph_shown)
    set_image(driver, face_png)
    Select(driver.find_element(By.ID, "scale")).select_by_value("signed")
    run_form(driver)
    got = page_outputs(driver)
    want = rest_infer(base, "blazeface", "input:0", x, {"Authorization": "Bearer s3cret-token"})
    check(all(n in got and summary_matches(got[n], want[n], 1e-5, 1e-6) for n in FACE_OUT),
          "with the token, the image run matches the REST answer")
    check(driver.execute_script("return sessionStorage.getItem('onyx-serve-token')") == "s3cret-token",
          "the token is kept in sessionStorage")
    driver.refresh()
    wait(driver, "after a reload the page still has the token", lambda d: ("blazeface", "1") in model_rows(d))
finally:
    stop_server(proc)
    driver.quit()
    shutil.rmtree(tmp, ignore_errors=True)

print(f"{len(failures)} failures" if failures else "all web page checks passed")
sys.exit(1 if failures else 0)
