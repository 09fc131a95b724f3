import CAtspi
import Foundation
import Testing
import DBusKit
import TestSupport

/// libatspi called directly from Swift, the library under Orca, pyatspi and dogtail.
///
/// libatspi chooses its bus once per process (at atspi_init, from AT_SPI_BUS_ADDRESS), so this is
/// the ONLY test in the process that loads it; every other client check runs in a child process.
@Suite("Accessible slider through libatspi from Swift")
struct LibatspiTests {
    @Test("finds the slider in the desktop, reads it, and a value write commits")
    func readAndWrite() throws {
        let fixture = try SliderFixture()
        setenv("AT_SPI_BUS_ADDRESS", fixture.stack.address, 1)
        #expect(atspi_init() == 0, "first and only initialisation in this process")
        var error: UnsafeMutablePointer<GError>?
        func takeString(_ text: UnsafeMutablePointer<gchar>?) -> String? {
            defer { g_free(text) }
            return text.map { String(cString: $0) }
        }
        func noError() -> Bool {
            defer { if error != nil { g_error_free(error); error = nil } }
            return error == nil
        }

        let desktop = try #require(atspi_get_desktop(0))
        defer { g_object_unref(desktop) }
        var app: UnsafeMutablePointer<AtspiAccessible>?
        for index in 0..<max(atspi_accessible_get_child_count(desktop, &error), 0) {
            guard let child = atspi_accessible_get_child_at_index(desktop, index, &error) else {
                continue
            }
            if takeString(atspi_accessible_get_name(child, &error)) == "snapsize", app == nil {
                app = child
            } else {
                g_object_unref(child)
            }
        }
        let application = try #require(app, "snapsize is among the desktop's applications")
        defer { g_object_unref(application) }
        #expect(atspi_accessible_get_role(application, &error) == ATSPI_ROLE_APPLICATION)
        #expect(takeString(atspi_accessible_get_toolkit_name(application, &error)) == "snapsize")
        #expect(
            atspi_accessible_get_child_count(application, &error) == 2, "the frame, then the status bar")

        let frame = try #require(atspi_accessible_get_child_at_index(application, 0, &error))
        defer { g_object_unref(frame) }
        #expect(atspi_accessible_get_role(frame, &error) == ATSPI_ROLE_FRAME)
        let slider = try #require(atspi_accessible_get_child_at_index(frame, 0, &error))
        defer { g_object_unref(slider) }
        #expect(noError())
        #expect(atspi_accessible_get_role(slider, &error) == ATSPI_ROLE_SLIDER)
        #expect(takeString(atspi_accessible_get_name(slider, &error)) == "Circle size")
        #expect(
            takeString(atspi_accessible_get_description(slider, &error))
                == "One of 20, 40, 60, 80 or 100 points")
        #expect(atspi_accessible_get_index_in_parent(slider, &error) == 0)
        let states = try #require(atspi_accessible_get_state_set(slider))
        defer { g_object_unref(states) }
        for state in [
            ATSPI_STATE_ENABLED, ATSPI_STATE_SENSITIVE, ATSPI_STATE_VISIBLE, ATSPI_STATE_SHOWING,
            ATSPI_STATE_FOCUSABLE, ATSPI_STATE_HORIZONTAL
        ] {
            #expect(atspi_state_set_contains(states, state) != 0, "state \(state.rawValue)")
        }
        #expect(atspi_state_set_contains(states, ATSPI_STATE_FOCUSED) == 0)
        // The *_iface getters return NULL unless GetInterfaces listed the interface.
        let component = try #require(atspi_accessible_get_component_iface(slider))
        g_object_unref(component)

        let value = try #require(atspi_accessible_get_value_iface(slider))
        defer { g_object_unref(value) }
        #expect(atspi_value_get_minimum_value(value, &error) == 0)
        #expect(atspi_value_get_maximum_value(value, &error) == 4)
        #expect(atspi_value_get_minimum_increment(value, &error) == 1)
        #expect(atspi_value_get_current_value(value, &error) == 2)
        #expect(takeString(atspi_value_get_text(value, &error)) == "60 points")
        #expect(noError())

        #expect(atspi_value_set_current_value(value, 3.6, &error) != 0)
        #expect(atspi_value_get_current_value(value, &error) == 4)
        #expect(takeString(atspi_value_get_text(value, &error)) == "100 points")
        #expect(
            try fixture.client.selectorProperty("SelectedIndex") == .uint32(4),
            "the D-Bus side shows the write")

        let action = try #require(atspi_accessible_get_action_iface(slider))
        defer { g_object_unref(action) }
        #expect(atspi_action_get_n_actions(action, &error) == 2)
        #expect(takeString(atspi_action_get_action_name(action, 0, &error)) == "increment")
        #expect(takeString(atspi_action_get_action_name(action, 1, &error)) == "decrement")
        #expect(atspi_action_do_action(action, 0, &error) == 0, "at the top: refused")
        #expect(atspi_action_do_action(action, 1, &error) != 0)
        #expect(atspi_value_get_current_value(value, &error) == 3)
        #expect(noError())
    }
}
