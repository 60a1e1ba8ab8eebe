"""Debian's headless Chromium, driven by Selenium through Debian's chromedriver (both
installed by scripts/install_chromium.sh): no browser is downloaded at run time."""

from __future__ import annotations

import shutil
from pathlib import Path

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


def available() -> bool:
    return Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()


def chromium(width: int = 1280, height: int = 900):
    """A headless Chromium with the network switched off and its console kept."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",  # CI containers run as root
        "--disable-gpu",
        "--disable-dev-shm-usage",
        f"--window-size={width},{height}",
        "--hide-scrollbars",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    # Offline: a page that needed a stylesheet, font or script from elsewhere would show it.
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd(
        "Network.emulateNetworkConditions",
        {"offline": True, "latency": 0, "downloadThroughput": 0, "uploadThroughput": 0},
    )
    return driver


def screenshot(driver, path: Path, width: int = 1280) -> None:
    """The whole page at `width` px wide."""
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(width, max(600, min(int(height) + 120, 6000)))
    # Let the resized page lay out and paint before the capture (else half-drawn tables).
    driver.execute_async_script(
        "const done = arguments[0];"
        "requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done, 150)));"
    )
    driver.save_screenshot(str(path))
