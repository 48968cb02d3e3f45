/* Board glue for an ESP32 (ESP-IDF 5.x, NimBLE host): scan Pixels dice advertisements, feed the
 * portable core (dd_bridge.c), talk to the companion over the USB serial port.
 *
 * This is the only file that knows about the radio, the UART and the clock.  It is NOT built by
 * the host Makefile and has not been run on hardware in this project; the portable core it calls
 * is what the host tests cover.  Advertisement layout expected: see dd_pixels.h.
 *
 * Build: add this folder as an ESP-IDF component (idf_component_register(SRCS "board_esp32.c"
 * "dd_bridge.c" "dd_protocol.c" "dd_roll.c" "dd_pixels.c" INCLUDE_DIRS "." REQUIRES bt
 * esp_driver_uart esp_timer nvs_flash)) and enable CONFIG_BT_NIMBLE_ENABLED.
 *
 * Not done here: BLINK needs a connection to the die (Pixels "Blink" message, id 29, on the write
 * characteristic 6e400002-...); this glue answers a BLINK with a DDE fault "E_BLINK" instead of
 * pretending.  Reading rolls over a connection (more reliable than advertisements) is likewise
 * left to a later version.
 */
#include <string.h>

#include "driver/uart.h"
#include "esp_timer.h"
#include "freertos/FreeRTOS.h"
#include "freertos/semphr.h"
#include "freertos/task.h"
#include "host/ble_hs.h"
#include "nimble/nimble_port.h"
#include "nimble/nimble_port_freertos.h"
#include "nvs_flash.h"

#include "dd_bridge.h"

#define BRIDGE_UART UART_NUM_0 /* the USB-serial port of most dev boards */
#define BRIDGE_BAUD 115200     /* the protocol's rate, 8N1 */

static dd_bridge bridge;
static SemaphoreHandle_t bridge_lock; /* the core is not thread-safe: radio and UART tasks share it */

static uint32_t now_ms(void) { return (uint32_t)(esp_timer_get_time() / 1000); }

static void uart_write_line(const char *line, size_t len, void *ctx) {
    (void)ctx;
    uart_write_bytes(BRIDGE_UART, line, len);
}

static void blink_unsupported(uint32_t pixel_id, uint8_t count, uint32_t rgb, void *ctx) {
    (void)pixel_id;
    (void)count;
    (void)rgb;
    (void)ctx;
    /* Called with bridge_lock held, from dd_bridge_rx: report honestly that we cannot blink yet. */
    dd_bridge_fault(&bridge, "E_BLINK", "blink needs a die connection; not supported by this bridge");
}

static int on_gap_event(struct ble_gap_event *event, void *arg) {
    dd_pixels_adv adv;
    (void)arg;
    if (event->type == BLE_GAP_EVENT_DISC &&
        dd_pixels_parse(event->disc.data, event->disc.length_data, &adv)) {
        xSemaphoreTake(bridge_lock, portMAX_DELAY);
        dd_bridge_on_adv(&bridge, now_ms(), &adv);
        xSemaphoreGive(bridge_lock);
    } else if (event->type == BLE_GAP_EVENT_DISC_COMPLETE) {
        struct ble_gap_disc_params params = {0};
        params.passive = 0; /* active: the scan response carries the service data */
        params.filter_duplicates = 0; /* every advertisement: roll states change */
        ble_gap_disc(BLE_OWN_ADDR_PUBLIC, BLE_HS_FOREVER, &params, on_gap_event, NULL);
    }
    return 0;
}

static void on_sync(void) {
    struct ble_gap_disc_params params = {0};
    params.passive = 0;
    params.filter_duplicates = 0;
    ble_gap_disc(BLE_OWN_ADDR_PUBLIC, BLE_HS_FOREVER, &params, on_gap_event, NULL);
}

static void host_task(void *param) {
    (void)param;
    nimble_port_run();
    nimble_port_freertos_deinit();
}

static void serial_task(void *param) {
    char buf[64];
    (void)param;
    for (;;) {
        int n = uart_read_bytes(BRIDGE_UART, buf, sizeof buf, pdMS_TO_TICKS(20));
        xSemaphoreTake(bridge_lock, portMAX_DELAY);
        if (n > 0) dd_bridge_rx(&bridge, buf, (size_t)n);
        dd_bridge_tick(&bridge, now_ms()); /* settle timers and lost dice, every 20 ms at most */
        xSemaphoreGive(bridge_lock);
    }
}

void app_main(void) {
    uart_config_t uart = {
        .baud_rate = BRIDGE_BAUD,
        .data_bits = UART_DATA_8_BITS,
        .parity = UART_PARITY_DISABLE,
        .stop_bits = UART_STOP_BITS_1,
        .flow_ctrl = UART_HW_FLOWCTRL_DISABLE,
    };
    nvs_flash_init();
    uart_driver_install(BRIDGE_UART, 1024, 1024, 0, NULL, 0);
    uart_param_config(BRIDGE_UART, &uart);
    bridge_lock = xSemaphoreCreateMutex();
    dd_bridge_init(&bridge, "esp32bridge", "1.0.0", uart_write_line, blink_unsupported, NULL);
    nimble_port_init();
    ble_hs_cfg.sync_cb = on_sync;
    nimble_port_freertos_init(host_task);
    xTaskCreate(serial_task, "dd_serial", 4096, NULL, 5, NULL);
}
